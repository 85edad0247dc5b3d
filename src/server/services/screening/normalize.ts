import anyAscii from "any-ascii";
import doubleMetaphone from "talisman/phonetics/double-metaphone.js";

/**
 * Titles and honorifics that say nothing about who a person is. Removed before comparing, so
 * "Sheikh Omar X" and "Omar X" are the same name. Lower case, after transliteration.
 */
const HONORIFICS = new Set([
  "mr",
  "mrs",
  "ms",
  "miss",
  "mx",
  "mister",
  "madam",
  "mme",
  "dr",
  "prof",
  "sir",
  "dame",
  "lord",
  "lady",
  "sheikh",
  "shaikh",
  "sheik",
  "shaykh",
  "haji",
  "hajji",
  "hadji",
  "hajj",
  "al-hajj",
  "mullah",
  "sayyid",
  "seyed",
  "seyyed",
  "sayyed",
  "gen",
  "general",
  "col",
  "colonel",
  "capt",
  "captain",
  "lt",
  "maj",
  "major",
  "rev",
  "jr",
  "sr",
  "gospodin",
  "kyrios",
  "senor",
  "sra",
  "herr",
  "frau",
]);

/**
 * A name as comparable tokens: transliterated to ASCII (Cyrillic, Greek, Arabic… via any-ascii),
 * lower case, accents and punctuation gone, honorifics removed. Order is kept (scoring is order
 * free); an initial stays a one-letter token. Honorifics are recognised only in words written in
 * Latin script: Arabic "عمر" (Omar) transliterates to "mr" and must not be dropped as "Mr".
 */
export function nameTokens(raw: string): string[] {
  const out: string[] = [];
  for (const word of raw.normalize("NFKC").split(/[\s,;/()]+/)) {
    if (!word) continue;
    const latin = /^[\p{Script=Latin}\p{M}\p{P}\d]+$/u.test(word);
    const tokens = anyAscii(word)
      .toLowerCase()
      .replace(/['’`´]/g, "")
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    for (const t of tokens) if (!(latin && HONORIFICS.has(t))) out.push(t);
  }
  return out;
}

/** The normalised form stored per name variant: tokens joined by single spaces. */
export const normalizeName = (raw: string): string => nameTokens(raw).join(" ");

/**
 * The consonant skeleton of a token ("mohammed" → "mhmd", "amina" → "mn"): Arabic written
 * without short vowels transliterates to about this, so a Latin spelling and an Arabic-script
 * name still meet.
 */
export function skeleton(token: string): string {
  // A loop rather than two regular expressions: retrieval takes the skeletons of hundreds of
  // words one typing error away from each query word (retrieval.ts).
  let out = "";
  let last = "";
  for (const c of token) {
    if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || c === "y" || c === last) continue;
    out += c;
    last = c;
  }
  return out;
}

/**
 * The shape of a token: consonants kept, each run of vowels one "_" ("mohammad" → "m_h_m_d",
 * "mahmoud" → "m_hm_d"). Two spellings of one name keep their shape (Mohammed, Muhammad); two
 * names that only share a consonant skeleton usually do not (Mahmoud, Mohammad).
 */
export function consonantShape(token: string): string {
  return token.replace(/(.)\1+/g, "$1").replace(/[aeiouy]+/g, "_");
}

/**
 * The consonant shape of a token after the spelling choices of transliteration that keep a
 * retrieval key in common (Double Metaphone or skeleton): ph/f, q/k, c/k before a, o, u, w/v,
 * ks/x, sch/sh, and a final h after a vowel (Hamzah / Hamza); vowels and doubled letters are
 * already one mark in the shape (Abou / Abu, Muhamad / Muhammad, Yusif / Yusuf). kh/h and dj/j are
 * left out: "halid" shares no key with "khalid", so retrieval would not find what this accepted.
 * Weak aliases of one word match through it (docs/screening.md § Scoring).
 */
export function transliterationShape(token: string): string {
  return consonantShape(
    token
      .replace(/sch/g, "sh")
      .replace(/ph/g, "f")
      .replace(/ks/g, "x")
      .replace(/q/g, "k")
      .replace(/c(?=[aou]|$)/g, "k")
      .replace(/w/g, "v")
      .replace(/(?<=[aeiouy])h$/, ""),
  );
}

/** A token written without vowels (Arabic or Hebrew script transliterated: "mhmd"). */
export const isVowelless = (token: string): boolean => token.length >= 2 && !/[aeiouy]/.test(token);

// East Slavic patronymics as OFAC and passports write them: Sergeevich, Sergeevna, Petrovych,
// Ivanivna, Belarusian Mikhailavich, and the German-style forms of older transliterations (Achmatowitsch, Achmatowisch).
const PATRONYMIC_SUFFIX =
  /(?:ovich|evich|yevich|avich|ovych|evych|avych|ovitch|evitch|owitsch|ewitsch|owitch|ewitch|owisch|ewisch|ovna|evna|yevna|owna|ewna|auna|avna|ivna|ichna|inichna)$/;
const SHORT_PATRONYMIC = /^(?:.{2,}?(?:ov|ev|in|yin))(?:ich|ych|na)$/; // Ilyich, Fomich, Lukich, Ilyinichna
// The surname made of a stem: Sergeev, Sergeeva, Petrov, Petrova, Ilyin, Ilyina, Vasyliv, Jurjewa, Mikhailau.
const SURNAME_SUFFIX = /(?:ova|eva|yeva|owa|ewa|ina|iva|aua|ava|ov|ev|yev|ow|ew|in|iv|au|av)$/;

/** True for a token that reads as an East Slavic patronymic ("sergeevich", "ivanovna"). */
export const isPatronymic = (token: string): boolean =>
  token.length >= 7 && (PATRONYMIC_SUFFIX.test(token) || SHORT_PATRONYMIC.test(token));

/**
 * True when one token is a patronymic and the other the surname of the same stem
 * ("sergeev" / "sergeevich", "petrova" / "petrovna", "akhmatov" / "achmatowitsch"): nearly the
 * same letters, but a different part of the name, so never one person's name written two ways.
 */
export function patronymicOfSurname(a: string, b: string): boolean {
  const [p, s] = isPatronymic(a) ? [a, b] : isPatronymic(b) ? [b, a] : [null, null];
  if (!p || !s || isPatronymic(s) || !SURNAME_SUFFIX.test(s)) return false;
  const ps = p.replace(PATRONYMIC_SUFFIX, "").replace(/(?:ov|ev|in|yin)(?:ich|ych|na)$/, "");
  const ss = s.replace(SURNAME_SUFFIX, "");
  if (ps.length < 2 || ss.length < 2) return false;
  return ps === ss || oneEditApart(ps, ss) || skeleton(ps.replace(/kh/g, "ch")) === skeleton(ss.replace(/kh/g, "ch"));
}

/**
 * Particles of Arabic, Spanish, Dutch… names (al, bin, abu, de, van): they join the words that
 * identify someone and count for little when names are compared.
 */
const PARTICLES = new Set([
  "al",
  "el",
  "ad",
  "ash",
  "as",
  "ar",
  "an",
  "bin",
  "ibn",
  "bint",
  "ben",
  "abu",
  "ould",
  "de",
  "del",
  "la",
  "da",
  "di",
  "dos",
  "van",
  "von",
  "der",
]);
export const isParticle = (token: string): boolean => PARTICLES.has(token);

/** True when `b` is `a` with one letter changed, added, dropped, or two neighbours swapped. */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  const [s, t] = a.length <= b.length ? [a, b] : [b, a];
  if (t.length - s.length > 1) return false;
  let i = 0;
  while (i < s.length && s[i] === t[i]) i++;
  if (s.length === t.length) {
    if (s.slice(i + 1) === t.slice(i + 1)) return true; // substitution
    return s[i] === t[i + 1] && s[i + 1] === t[i] && s.slice(i + 2) === t.slice(i + 2); // transposition
  }
  return s.slice(i) === t.slice(i + 1); // insertion or deletion
}

/**
 * Weak aliases (OFAC's "a.k.a. 'ABU-'UMAR'" in Remarks, FtM `weakAlias`) are stored among an
 * entry's normalised names with this mark in front. They match under a stricter bar than strong
 * names (score.ts, docs/screening.md § Scoring): as many words as the alias, each one the alias's
 * word in another transliteration or, in an alias of two words or more, one letter off.
 * Normalised names hold only `[a-z0-9 ]`, so the mark cannot occur in a strong name.
 */
export const WEAK_ALIAS_MARK = "=";
export const weakAliasVariant = (normalized: string): string => `${WEAK_ALIAS_MARK}${normalized}`;
export const isWeakAliasVariant = (variant: string): boolean => variant.startsWith(WEAK_ALIAS_MARK);
/** The tokens of a stored normalised name, strong or weak. */
export const variantTokens = (variant: string): string[] =>
  (isWeakAliasVariant(variant) ? variant.slice(WEAK_ALIAS_MARK.length) : variant).split(" ").filter(Boolean);

// Entry tokens repeat across screens (common names); a bounded memo spares recomputing their codes.
const codeMemo = new Map<string, string[]>();

/** Phonetic codes of one token (primary and secondary Double Metaphone, de-duplicated). */
export function phoneticCodes(token: string): string[] {
  if (token.length < 2 || /\d/.test(token)) return [];
  let codes = codeMemo.get(token);
  if (!codes) {
    const [a, b] = doubleMetaphone(token);
    codes = [...new Set([a, b].filter((c) => c.length > 0))];
    if (codeMemo.size >= 100_000) codeMemo.clear();
    codeMemo.set(token, codes);
  }
  return codes;
}

/**
 * Retrieval keys of one name: Double Metaphone codes ("m:") and consonant skeletons ("s:") of
 * each token of two letters or more. Stored per entry at import (GIN-indexed) and computed per
 * query, so a screen fetches only entries sharing a key instead of scoring the whole list.
 */
export function retrievalKeys(tokens: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const t of tokens) {
    if (t.length < 2) continue;
    for (const c of phoneticCodes(t)) keys.add(`m:${c}`);
    const sk = skeleton(t);
    if (sk.length >= 2) keys.add(`s:${sk}`);
  }
  return [...keys];
}

/** The stored key of an initial (a one-letter token) of a list entry's name: "i:" and the letter. */
export const initialKey = (letter: string): string => `i:${letter}`;
