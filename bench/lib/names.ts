/** A deterministic generator, so every run of a bench seeds the same names. */
export function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;

/**
 * One name culture, as lists are full of it: common given names (drawn with a skew, so a few are
 * very common as in life), surnames built from roots and endings (so most are rare, a few common),
 * and the culture's own shape (patronymics, two surnames, kunyas, family name first).
 */
type Culture = { name: string; share: number; make: (r: Picker) => string };

type Picker = {
  rand: Rand;
  /** Uniform over `xs`. */
  any<T>(xs: readonly T[]): T;
  /** Skewed towards the start of `xs`: the first items are the common ones. */
  common<T>(xs: readonly T[]): T;
  chance(p: number): boolean;
};

function picker(rand: Rand): Picker {
  return {
    rand,
    any: (xs) => xs[Math.floor(rand() * xs.length)]!,
    common: (xs) => xs[Math.floor(rand() ** 1.3 * xs.length)]!,
    chance: (p) => rand() < p,
  };
}

const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);

/** A family name from a root, sometimes a middle part, and an ending: thousands of them, most rare. */
const built = (r: Picker, roots: readonly string[], middles: readonly string[], endings: readonly string[]) =>
  r.any(roots) + (r.chance(0.75) ? r.any(middles) : "") + r.any(endings);

const SLAVIC_MEN = [
  "Oleksandr",
  "Sergei",
  "Dmitri",
  "Andrei",
  "Vladimir",
  "Ivan",
  "Mikhail",
  "Nikolai",
  "Pavel",
  "Yuri",
  "Oleg",
  "Viktor",
  "Igor",
  "Bogdan",
  "Taras",
  "Kirill",
  "Stanislav",
  "Vitaliy",
  "Roman",
  "Yevgeny",
];
const SLAVIC_WOMEN = [
  "Olga",
  "Elena",
  "Natalia",
  "Irina",
  "Tatiana",
  "Svetlana",
  "Anna",
  "Yulia",
  "Marina",
  "Oksana",
  "Vera",
  "Zoya",
  "Lyudmila",
  "Galina",
  "Daria",
];
const SLAVIC_ROOTS = [
  "Petr",
  "Kovalch",
  "Shevch",
  "Bondar",
  "Tkach",
  "Kravch",
  "Moroz",
  "Lysen",
  "Hrytsen",
  "Ivan",
  "Sidor",
  "Kuznets",
  "Sokol",
  "Volk",
  "Zaits",
  "Orlov",
  "Lebed",
  "Belous",
  "Chern",
  "Grom",
  "Drozd",
  "Karp",
  "Melnych",
  "Rudn",
  "Savch",
  "Tymosh",
  "Vasyl",
  "Yarosh",
  "Zhuk",
  "Fedor",
];
const SLAVIC_ENDINGS = ["enko", "uk", "ov", "ovich", "insky", "yshyn", "arenko", "evsky", "in", "ak"];
const SLAVIC_FATHERS = ["Ivan", "Petr", "Sergei", "Mykhailo", "Vasyl", "Nikolai", "Oleksandr", "Yuri", "Viktor", "Anatoli"];

const GREEK_MEN = [
  "Georgios",
  "Ioannis",
  "Konstantinos",
  "Dimitrios",
  "Nikolaos",
  "Panagiotis",
  "Vasileios",
  "Christos",
  "Athanasios",
  "Evangelos",
  "Michail",
  "Spyridon",
];
const GREEK_WOMEN = ["Maria", "Eleni", "Aikaterini", "Vasiliki", "Sofia", "Angeliki", "Georgia", "Dimitra", "Konstantina", "Paraskevi"];
const GREEK_ROOTS = [
  "Papad",
  "Konstantin",
  "Georgi",
  "Nikol",
  "Dimitr",
  "Vasil",
  "Karamanl",
  "Ioann",
  "Christodoul",
  "Pappas",
  "Athanas",
  "Stavr",
  "Mich",
  "Alexandr",
  "Theodor",
  "Zachar",
  "Kyriak",
  "Panag",
];
const GREEK_ENDINGS = ["opoulos", "idis", "akis", "ou", "atos", "iadis", "elis", "ikos"];

const ARABIC_MEN = [
  "Muhammad",
  "Ahmad",
  "Ali",
  "Omar",
  "Hassan",
  "Hussein",
  "Abdullah",
  "Khalid",
  "Yusuf",
  "Ibrahim",
  "Mustafa",
  "Tariq",
  "Karim",
  "Bilal",
  "Hamza",
  "Said",
  "Abd al-Rahman",
  "Abd al-Aziz",
  "Mahmoud",
  "Jamal",
];
const ARABIC_WOMEN = ["Fatima", "Aisha", "Maryam", "Layla", "Nadia", "Samira", "Amina", "Rania", "Huda", "Zainab", "Noor", "Salma"];
const ARABIC_FAMILIES = [
  "Haddad",
  "Mansour",
  "Khoury",
  "Nasser",
  "Saleh",
  "Qasim",
  "Rashid",
  "Hamdan",
  "Jaber",
  "Tahir",
  "Karam",
  "Fadl",
  "Zafar",
  "Belkhir",
  "Najjar",
  "Masri",
  "Shami",
  "Tamimi",
  "Obeidi",
  "Jubouri",
  "Dulaimi",
  "Zahrani",
  "Qahtani",
  "Harbi",
  "Shehri",
];

const ARABIC_ROOTS = [
  "Hadd",
  "Qas",
  "Belkh",
  "Nour",
  "Zaf",
  "Mans",
  "Tah",
  "Sal",
  "Jab",
  "Rash",
  "Kar",
  "Fadl",
  "Shar",
  "Ghan",
  "Ham",
  "Dah",
  "Maj",
  "Sab",
];
const ARABIC_ENDINGS = ["arif", "imari", "azra", "alid", "iri", "ouri", "ani", "adi", "oumi", "awi"];

const HISPANIC_MEN = [
  "José",
  "Juan",
  "Luis",
  "Carlos",
  "Jorge",
  "Miguel",
  "Francisco",
  "Antonio",
  "Alejandro",
  "Manuel",
  "Javier",
  "Rafael",
  "Pedro",
  "Diego",
  "Fernando",
];
const HISPANIC_WOMEN = [
  "María",
  "Guadalupe",
  "Ana",
  "Carmen",
  "Rosa",
  "Lucía",
  "Isabel",
  "Sofía",
  "Elena",
  "Patricia",
  "Verónica",
  "Adriana",
];
const HISPANIC_SURNAMES = [
  "García",
  "Rodríguez",
  "Martínez",
  "Hernández",
  "López",
  "González",
  "Pérez",
  "Sánchez",
  "Ramírez",
  "Torres",
  "Flores",
  "Rivera",
  "Gómez",
  "Díaz",
  "Cruz",
  "Morales",
  "Reyes",
  "Gutiérrez",
  "Ortiz",
  "Chávez",
  "Mendoza",
  "Ruiz",
  "Castillo",
  "Jiménez",
  "Vargas",
  "Romero",
  "Herrera",
  "Medina",
  "Aguilar",
  "Cabezón",
  "Villanueva",
  "Echeverría",
  "Zambrano",
  "Quintero",
  "Arriaga",
];

const HISPANIC_ROOTS = [
  "Fern",
  "Mart",
  "Beng",
  "Ord",
  "Sarm",
  "Quir",
  "Barr",
  "Alv",
  "Carr",
  "Esc",
  "Gall",
  "Lar",
  "Mend",
  "Pard",
  "Salc",
  "Urr",
  "Vel",
  "Zam",
];
const HISPANIC_ENDINGS = ["ez", "es", "o", "a", "ero", "eda", "ín", "ado", "iza"];

// Chinese names, pinyin: a few family names cover much of the population; given names of one or two syllables.
const CHINESE_FAMILIES = [
  "Wang",
  "Li",
  "Zhang",
  "Liu",
  "Chen",
  "Yang",
  "Huang",
  "Zhao",
  "Wu",
  "Zhou",
  "Xu",
  "Sun",
  "Ma",
  "Zhu",
  "Hu",
  "Guo",
  "He",
  "Lin",
  "Gao",
  "Luo",
  "Zheng",
  "Liang",
  "Xie",
  "Song",
  "Tang",
  "Han",
  "Feng",
  "Deng",
  "Cao",
  "Peng",
];
const CHINESE_SYLLABLES = [
  "wei",
  "jun",
  "ming",
  "hua",
  "xiao",
  "li",
  "jian",
  "guo",
  "hong",
  "ping",
  "yan",
  "fang",
  "qiang",
  "lei",
  "jie",
  "tao",
  "bin",
  "hui",
  "ling",
  "yong",
  "zhi",
  "xin",
  "yu",
  "chen",
  "hao",
  "yi",
  "jing",
  "dong",
  "feng",
  "lan",
  "mei",
  "qing",
  "shan",
  "wen",
  "xue",
  "zhong",
  "an",
  "bo",
  "cheng",
  "da",
  "fei",
  "gang",
  "hai",
  "jia",
  "kai",
  "le",
  "min",
  "na",
  "peng",
  "qi",
  "rong",
  "shu",
  "ting",
  "xiang",
  "yao",
  "ze",
  "zhen",
  "lu",
  "song",
  "tian",
];

const SOUTH_ASIAN_MEN = [
  "Rahul",
  "Amit",
  "Sanjay",
  "Rajesh",
  "Suresh",
  "Vijay",
  "Anil",
  "Sunil",
  "Arjun",
  "Imran",
  "Farhan",
  "Mohammed",
  "Ravi",
  "Deepak",
  "Manoj",
  "Prakash",
  "Harpreet",
  "Gurpreet",
];
const SOUTH_ASIAN_WOMEN = [
  "Priya",
  "Anjali",
  "Sunita",
  "Pooja",
  "Neha",
  "Kavita",
  "Ayesha",
  "Fatima",
  "Lakshmi",
  "Deepa",
  "Meena",
  "Shabnam",
];
const SOUTH_ASIAN_SURNAMES = [
  "Kumar",
  "Singh",
  "Sharma",
  "Patel",
  "Gupta",
  "Khan",
  "Shah",
  "Reddy",
  "Rao",
  "Iyer",
  "Nair",
  "Menon",
  "Chaudhary",
  "Verma",
  "Mehta",
  "Joshi",
  "Malik",
  "Qureshi",
  "Siddiqui",
  "Banerjee",
  "Chatterjee",
  "Mukherjee",
  "Desai",
  "Pillai",
  "Dhar",
  "Bhat",
  "Kapoor",
  "Saxena",
  "Trivedi",
];

const SOUTH_ASIAN_ROOTS = [
  "Desh",
  "Kulk",
  "Gaik",
  "Agar",
  "Bhand",
  "Chand",
  "Dwiv",
  "Gokh",
  "Jadh",
  "Kamb",
  "Mahaj",
  "Nimb",
  "Path",
  "Sawh",
  "Thak",
  "Wad",
];
const SOUTH_ASIAN_ENDINGS = ["pande", "arni", "wad", "wal", "ari", "edi", "ale", "av", "le", "kar", "ani", "ia"];

const WEST_AFRICAN_FIRST = [
  "Oluwaseun",
  "Chukwuemeka",
  "Adebayo",
  "Ngozi",
  "Chinedu",
  "Funmilayo",
  "Ibrahim",
  "Aminu",
  "Kwame",
  "Kofi",
  "Ama",
  "Abena",
  "Yaw",
  "Emeka",
  "Chiamaka",
  "Babajide",
  "Olumide",
  "Folake",
  "Musa",
  "Usman",
  "Halima",
  "Abdoulaye",
  "Mamadou",
  "Fatou",
  "Moussa",
  "Aissatou",
];
const WEST_AFRICAN_ROOTS = [
  "Ade",
  "Olu",
  "Oke",
  "Chukwu",
  "Nwa",
  "Oko",
  "Obi",
  "Eze",
  "Ogun",
  "Aki",
  "Bello",
  "Diall",
  "Traor",
  "Kon",
  "Asant",
  "Mens",
  "Owus",
  "Bamid",
  "Ibek",
  "Onyek",
];
const WEST_AFRICAN_ENDINGS = ["yemi", "fo", "nkwo", "wu", "fe", "ola", "bisi", "ke", "o", "e", "ah", "ah-Boateng", "kwe", "ri", "ye", "le"];

const CULTURES: Culture[] = [
  {
    name: "east-slavic",
    share: 0.16,
    make: (r) => {
      const woman = r.chance(0.35);
      const first = r.common(woman ? SLAVIC_WOMEN : SLAVIC_MEN);
      let last = built(
        r,
        SLAVIC_ROOTS,
        ["ar", "ov", "ush", "ch", "en", "ul", "yl", "ats", "im", "esh", "on", "ak", "ir", "uz"],
        SLAVIC_ENDINGS,
      );
      if (woman && /(ov|in)$/.test(last)) last += "a";
      if (!r.chance(0.45)) return `${first} ${last}`;
      const father = r.common(SLAVIC_FATHERS);
      return `${first} ${father}${woman ? "ovna" : "ovich"} ${last}`;
    },
  },
  {
    name: "greek",
    share: 0.08,
    make: (r) => {
      const woman = r.chance(0.35);
      let last = built(r, GREEK_ROOTS, ["an", "ar", "el", "ik", "om", "ot", "ag", "il", "op", "ast", "er", "yr"], GREEK_ENDINGS);
      if (woman && last.endsWith("os")) last = `${last.slice(0, -2)}ou`;
      // The father's name in the genitive, as Greek documents give it.
      const father = r.chance(0.4) ? ` ${r.common(GREEK_MEN).replace(/os$/, "ou").replace(/is$/, "i")}` : "";
      return `${r.common(woman ? GREEK_WOMEN : GREEK_MEN)}${father} ${last}`;
    },
  },
  {
    name: "arabic",
    share: 0.24,
    make: (r) => {
      const woman = r.chance(0.25);
      const first = r.common(woman ? ARABIC_WOMEN : ARABIC_MEN);
      const family = r.chance(0.5)
        ? r.any(ARABIC_FAMILIES)
        : built(r, ARABIC_ROOTS, ["a", "i", "ou", "am", "ir", "ar", "ab", "im", "ad"], ARABIC_ENDINGS);
      const parts = [first];
      if (r.chance(0.6)) {
        parts.push(`${woman ? "bint" : "bin"} ${r.any(ARABIC_MEN)}`);
        if (r.chance(0.3)) parts.push(`bin ${r.any(ARABIC_MEN)}`);
      } else if (r.chance(0.4)) parts.push(r.any(ARABIC_MEN));
      parts.push(r.chance(0.4) ? `al-${family}` : family);
      return parts.join(" ");
    },
  },
  {
    name: "hispanic",
    share: 0.16,
    make: (r) => {
      const woman = r.chance(0.4);
      const first = r.common(woman ? HISPANIC_WOMEN : HISPANIC_MEN);
      const second = r.chance(0.3) ? ` ${r.common(woman ? HISPANIC_WOMEN : HISPANIC_MEN)}` : "";
      const surname = () =>
        r.chance(0.5)
          ? r.any(HISPANIC_SURNAMES)
          : built(r, HISPANIC_ROOTS, ["al", "ar", "il", "orr", "en", "ill", "ond", "ag", "ed", "ub"], HISPANIC_ENDINGS);
      const paternal = surname();
      const maternal = r.chance(0.75) ? ` ${r.chance(0.1) ? "de la " : ""}${surname()}` : "";
      return `${first}${second} ${paternal}${maternal}`;
    },
  },
  {
    name: "chinese",
    share: 0.08,
    make: (r) => {
      const given = cap(r.any(CHINESE_SYLLABLES) + (r.chance(0.75) ? r.any(CHINESE_SYLLABLES) : ""));
      // Family name first, as Chinese lists write it; a third of lists put it last.
      const family = r.chance(0.6) ? r.common(CHINESE_FAMILIES) : r.any(CHINESE_FAMILIES);
      return r.chance(0.67) ? `${family} ${given}` : `${given} ${family}`;
    },
  },
  {
    name: "south-asian",
    share: 0.12,
    make: (r) => {
      const woman = r.chance(0.35);
      const first = r.common(woman ? SOUTH_ASIAN_WOMEN : SOUTH_ASIAN_MEN);
      const middle = r.chance(0.6)
        ? ` ${r.any(woman ? ["Kumari", "Devi", "Bibi", ...SOUTH_ASIAN_MEN] : ["Kumar", "Prasad", "Lal", "Ali", ...SOUTH_ASIAN_MEN])}`
        : "";
      const surname = r.chance(0.5)
        ? r.any(SOUTH_ASIAN_SURNAMES)
        : built(r, SOUTH_ASIAN_ROOTS, ["a", "i", "an", "ur", "at", "ap", "ik", "esh", "am", "ud"], SOUTH_ASIAN_ENDINGS);
      return `${first}${middle} ${surname}`;
    },
  },
  {
    name: "west-african",
    share: 0.12,
    make: (r) => {
      const first = r.common(WEST_AFRICAN_FIRST);
      const last = built(
        r,
        WEST_AFRICAN_ROOTS,
        ["la", "mi", "nde", "wa", "ko", "ba", "ye", "tu", "ji", "nu", "fo", "si"],
        WEST_AFRICAN_ENDINGS,
      );
      return r.chance(0.3) ? `${first} ${r.common(WEST_AFRICAN_FIRST)} ${last}` : `${first} ${last}`;
    },
  },
];

/**
 * Made-up personal names across seven name cultures (East Slavic with patronymics, Greek, Arabic
 * with nasab and al- family names, Hispanic with two surnames, Chinese in pinyin with few family
 * names, South Asian, West African), in shares like those of the consolidated sanctions and PEP
 * lists: common given names and family names recur, as they do in real lists, so many people
 * share retrieval keys with some list entry. Deterministic for a given `rand`.
 */
export function nameMaker(rand: Rand): () => string {
  const r = picker(rand);
  const total = CULTURES.reduce((s, c) => s + c.share, 0);
  return () => {
    let x = rand() * total;
    for (const c of CULTURES) {
      x -= c.share;
      if (x < 0) return c.make(r);
    }
    return CULTURES[CULTURES.length - 1]!.make(r);
  };
}
