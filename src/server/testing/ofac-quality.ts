/**
 * The labelled set built from a real OFAC SDN list (docs/screening.md § Quality on a real list):
 * the sample in tests/fixtures/ofac-sdn/ (SDN.CSV + ALT.CSV exactly as OFAC publishes them), the
 * pairs generated from it with a fixed seed, and their evaluation through the whole path
 * (retrieval by key, then scoring). Shared by the quality test and `npm run bench:screening`;
 * imports no test runner.
 */
import fs from "node:fs";
import path from "node:path";
import jaroWinkler from "talisman/metrics/jaro-winkler.js";
import type { DbOrTx } from "../db/client";
import { decodeListFile } from "../services/screening/import-files";
import type { ParsedEntry } from "../services/screening/list-types";
import { isPatronymic, nameTokens } from "../services/screening/normalize";
import { parseOfac } from "../services/screening/parse-ofac";
import { findMatches } from "../services/screening/screen";

export const OFAC_SAMPLE_DIR = path.resolve(process.cwd(), "tests/fixtures/ofac-sdn");
export const OFAC_PAIRS_FILE = path.join(OFAC_SAMPLE_DIR, "labelled-pairs.json");
export const OFAC_SAMPLE_FILES = ["SDN.CSV", "ALT.CSV"].map((f) => path.join(OFAC_SAMPLE_DIR, f));
const SEED = 20_240_501;
const PER_KIND = 80;

export const POSITIVE_KINDS = [
  "exact",
  "re-cased",
  "reordered",
  "shortened",
  "transliterated",
  "typo",
  "typo-first-letter",
  "birth-year-1-off",
  "weak-alias",
  "weak-alias-transliterated",
  "weak-alias-typo",
  "weak-alias-reordered",
] as const;
export const NEGATIVE_KINDS = [
  "patronymic-as-surname",
  "same-first-and-patronymic",
  "skeleton-neighbour",
  "other-person",
  "weak-alias-other-kunya",
  "weak-alias-word-in-other-name",
] as const;
export type PairKind = (typeof POSITIVE_KINDS)[number] | (typeof NEGATIVE_KINDS)[number];
export type LabelledPair = { id: number; kind: PairKind; query: { name: string; birthDate?: string }; entryId: string; match: boolean };

/** mulberry32: small, seeded, the same sequence on every machine. */
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The entries of the sample, as the importer reads them. */
export function loadOfacSample(paths: readonly string[] = OFAC_SAMPLE_FILES): ParsedEntry[] {
  const files = paths.map((p) => ({ name: path.basename(p), text: decodeListFile(fs.readFileSync(p)) }));
  return parseOfac(files).entries;
}

const titleCase = (s: string) => s.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_, sep: string, c: string) => sep + c.toUpperCase());
const PARTICLES = new Set(["al", "el", "abu", "abd", "bin", "ibn", "bint", "de", "del", "la", "da", "van", "von", "ould", "ben"]);

/** SDN names are `LAST, First`; ofacName turned them round, so the surname is the trailing upper-case words. */
function parts(e: ParsedEntry): { given: string[]; surname: string[] } | null {
  const words = e.name.split(/\s+/).filter(Boolean);
  const isUpper = (w: string) => /\p{L}/u.test(w) && w === w.toUpperCase();
  let k = words.length;
  while (k > 0 && isUpper(words[k - 1]!)) k--;
  const given = words.slice(0, k);
  const surname = words.slice(k);
  if (given.length === 0 || surname.length === 0 || given.some(isUpper)) return null;
  return { given, surname };
}

const SPELLINGS: [RegExp, string][] = [
  [/ou/, "u"],
  [/(?<![aeiou])u/, "ou"],
  [/kh/, "h"],
  [/(?<=.)y/, "i"],
  [/(?<=.)i(?=.)/, "y"],
  [/ee/, "i"],
  [/j/, "dj"],
  [/sh/, "sch"],
  [/ph/, "f"],
  [/w/, "v"],
  [/v/, "w"],
  [/c(?=[aou])/, "k"],
  [/q/, "k"],
  [/ei/, "ey"],
  [/ai/, "ay"],
  [/dh/, "z"],
  [/x/, "ks"],
  [/ks/, "x"],
];
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
/** Weak aliases are kunyas and short names: also Abu/Abou, a doubled letter written once, a final -ah/-a. */
const ALIAS_SPELLINGS: [RegExp, string][] = [
  ...SPELLINGS,
  [/^abu$/, "abou"],
  [/^abou$/, "abu"],
  [/(.)\1/, "$1"],
  [/ah$/, "a"],
  [/(?<=[^aeiouh])a$/, "ah"],
];

/** Generates the labelled pairs from the sample's entries; the same entries always give the same pairs. */
export function generatePairs(entries: readonly ParsedEntry[], seed = SEED): LabelledPair[] {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const shuffled = <T>(xs: readonly T[]): T[] => {
    const a = [...xs];
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  // Titles (Haji, Shaykh) are dropped by normalisation; a clerk's variant keeps the name words.
  const isTitle = (t: string) => nameTokens(t).length === 0;
  const people = entries.flatMap((e) => {
    const p = parts(e);
    if (!p) return [];
    const given = p.given.filter((t) => !isTitle(t));
    return given.length ? [{ e, given, surname: p.surname }] : [];
  });
  // A KYC record has a full birth date: the entry's when it has one, else a day in the listed year.
  const dob = (e: ParsedEntry): string | undefined => {
    const d = e.birthDates[0];
    if (!d) return undefined;
    if (d.length === 10) return d;
    if (d.length === 7) return `${d}-15`;
    return `${d}-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 9)}`;
  };
  const pairs: Omit<LabelledPair, "id">[] = [];
  // A negative is never a part of one of the entry's own names ("Ibrahim Sulayman" for "Ibrahim bin Sulayman al-Rubaysh").
  const partOfOwnName = (e: ParsedEntry, name: string) => {
    const q = nameTokens(name);
    return [e.name, ...e.aliases, ...(e.weakAliases ?? [])].some((n) => {
      const own = nameTokens(n);
      return q.every((t) => own.includes(t));
    });
  };
  const add = (kind: PairKind, e: ParsedEntry, name: string, match: boolean, birthDate?: string) =>
    pairs.push({ kind, query: { name, ...(birthDate ? { birthDate } : {}) }, entryId: e.externalId, match });
  const each = (kind: PairKind, make: (p: (typeof people)[number]) => { name: string; birthDate?: string } | null, match = true) => {
    let n = 0;
    for (const p of shuffled(people)) {
      if (n >= PER_KIND) break;
      const q = make(p);
      if (!q || (!match && partOfOwnName(p.e, q.name))) continue;
      add(kind, p.e, q.name, match, q.birthDate);
      n++;
    }
  };
  const kyc = (given: string[], surname: string[]) => titleCase([...given, ...surname].join(" "));
  const editToken = (tokens: string[], firstLetter: boolean): string[] | null => {
    const idx = tokens.map((t, i) => (t.length >= 4 && /^[a-z]+$/i.test(t) && !isTitle(t) ? i : -1)).filter((i) => i >= 0);
    if (idx.length === 0) return null;
    const i = pick(idx);
    const t = tokens[i]!.toLowerCase();
    let out: string;
    if (firstLetter) {
      const others = LETTERS.replace(t[0]!, "");
      out = pick([...others]) + t.slice(1);
    } else {
      const at = 1 + Math.floor(rand() * (t.length - 1));
      const op = Math.floor(rand() * 4);
      if (op === 0) out = t.slice(0, at) + pick([...LETTERS.replace(t[at] ?? "", "")]) + t.slice(at + 1);
      else if (op === 1) out = t.slice(0, at) + t.slice(at + 1);
      else if (op === 2) out = t.slice(0, at) + pick([...LETTERS]) + t.slice(at);
      else out = at < t.length - 1 ? t.slice(0, at) + t[at + 1] + t[at] + t.slice(at + 2) : t.slice(0, at - 1) + t[at] + t[at - 1];
    }
    if (out === t) return null;
    return tokens.map((x, k) => (k === i ? out : x));
  };

  // Positives: the query names the entry, as a clerk or an applicant would write it.
  each("exact", ({ e, given, surname }) => ({ name: kyc(given, surname), birthDate: dob(e) }));
  each("re-cased", ({ e, given, surname }) => {
    const n = [...given, ...surname].join(" ");
    return { name: rand() < 0.5 ? n.toUpperCase() : n.toLowerCase(), birthDate: dob(e) };
  });
  each("reordered", ({ e, given, surname }) => ({
    name: rand() < 0.5 ? titleCase([...surname, ...given].join(" ")) : `${titleCase(surname.join(" "))}, ${titleCase(given.join(" "))}`,
    birthDate: dob(e),
  }));
  each("shortened", ({ e, given, surname }) => {
    if (given.length >= 2) return { name: kyc([given[0]!], surname), birthDate: dob(e) };
    const kept = surname[0]!;
    if (surname.length >= 2 && kept.length >= 4 && !PARTICLES.has(kept.toLowerCase()))
      return { name: kyc(given, [kept]), birthDate: dob(e) };
    return null;
  });
  each("transliterated", ({ e, given, surname }) => {
    const tokens = [...given, ...surname].map((t) => t.toLowerCase());
    const order = shuffled(tokens.map((_, i) => i));
    for (const i of order) {
      for (const [re, to] of shuffled(SPELLINGS)) {
        const t = tokens[i]!;
        if (t.length < 4 || !re.test(t)) continue;
        const changed = tokens.map((x, k) => (k === i ? t.replace(re, to) : x));
        return { name: titleCase(changed.join(" ")), birthDate: dob(e) };
      }
    }
    return null;
  });
  each("typo", ({ e, given, surname }) => {
    const t = editToken([...given, ...surname], false);
    return t ? { name: titleCase(t.join(" ")), birthDate: dob(e) } : null;
  });
  each("typo-first-letter", ({ e, given, surname }) => {
    const t = editToken([...given, ...surname], true);
    return t ? { name: titleCase(t.join(" ")), birthDate: dob(e) } : null;
  });
  each("birth-year-1-off", ({ e, given, surname }) => {
    const d = e.birthDates.find((x) => x.length === 10);
    if (!d) return null;
    const year = Number(d.slice(0, 4)) + (rand() < 0.5 ? -1 : 1);
    return { name: kyc(given, surname), birthDate: `${year}${d.slice(4)}` };
  });
  each("weak-alias", ({ e }) => {
    const known = new Set([e.name, ...e.aliases].map((n) => nameTokens(n).join(" ")));
    const weak = (e.weakAliases ?? []).filter((w) => nameTokens(w).length > 0 && !known.has(nameTokens(w).join(" ")));
    return weak.length ? { name: titleCase(pick(weak)), birthDate: dob(e) } : null;
  });

  // Negatives: a different person with a name that looks alike. Name only (no birth date), the
  // hardest case: an applicant's own birth date would mostly contradict the entry's.
  const russian = people.filter((p) => p.given.some((g) => isPatronymic(g.toLowerCase())));
  const patronymicIndex = (g: string[]) => g.findIndex((x) => isPatronymic(x.toLowerCase()));
  each(
    "patronymic-as-surname",
    ({ e, given }) => {
      const i = patronymicIndex(given);
      if (i < 1) return null;
      const p = given[i]!.toLowerCase();
      const surname = p.replace(/ich$|ych$/, "").replace(/na$/, "a");
      if (surname === p || e.name.toLowerCase().split(/\s+/).includes(surname)) return null;
      return { name: titleCase(`${given[0]} ${surname}`) };
    },
    false,
  );
  each(
    "same-first-and-patronymic",
    ({ given, surname }) => {
      const i = patronymicIndex(given);
      if (i < 1) return null;
      const own = surname.join(" ").toLowerCase();
      for (let tries = 0; tries < 20; tries++) {
        const other = pick(russian).surname.join(" ").toLowerCase();
        if (other !== own && jaroWinkler(other, own) < 0.8) return { name: titleCase(`${given[0]} ${given[i]} ${other}`) };
      }
      return null;
    },
    false,
  );
  const NEIGHBOURS: [RegExp, string][] = [
    [/^(mohammad|mohammed|muhammad|muhammed|mohamed|mohamad|mohamud|muhamad)$/i, "Mahmoud"],
    [/^(mahmoud|mahmood|mahmud)$/i, "Mohammad"],
    [/^(ahmad|ahmed)$/i, "Hamid"],
    [/^(hamid|hamed)$/i, "Ahmad"],
  ];
  each(
    "skeleton-neighbour",
    (p) => {
      const tokens = [...p.given, ...p.surname];
      const i = tokens.findIndex((t) => NEIGHBOURS.some(([re]) => re.test(t)));
      if (i < 0) return null;
      const to = NEIGHBOURS.find(([re]) => re.test(tokens[i]!))![1];
      // Not a person the entry's other names already describe (an alias may hold the neighbour in any spelling).
      const family = NEIGHBOURS.find(([re]) => re.test(to))?.[0];
      if (family && p.e.aliases.some((n) => nameTokens(n).some((t) => family.test(t)))) return null;
      return { name: titleCase(tokens.map((t, k) => (k === i ? to : t)).join(" ")) };
    },
    false,
  );
  each(
    "other-person",
    ({ given, surname }) => {
      const own = surname.join(" ").toLowerCase();
      for (let tries = 0; tries < 20; tries++) {
        const other = pick(people).surname.join(" ").toLowerCase();
        if (jaroWinkler(other, own) < 0.8) return { name: titleCase(`${given[0]} ${other}`) };
      }
      return null;
    },
    false,
  );

  // Weak aliases written another way (generated last, so the pairs above stay as they were).
  const weakOf = (e: ParsedEntry): string[][] => {
    const known = new Set([e.name, ...e.aliases].map((n) => nameTokens(n).join(" ")));
    return (e.weakAliases ?? [])
      .map((w) => nameTokens(w))
      .filter((t) => t.length > 0 && !known.has(t.join(" ")) && t.every((x) => /^[a-z]+$/.test(x)));
  };
  each("weak-alias-transliterated", ({ e }) => {
    const weak = weakOf(e);
    if (!weak.length) return null;
    const tokens = pick(weak);
    for (const i of shuffled(tokens.map((_, k) => k))) {
      for (const [re, to] of shuffled(ALIAS_SPELLINGS)) {
        const t = tokens[i]!;
        if (t.length < 3 || !re.test(t)) continue;
        const changed = t.replace(re, to);
        if (changed === t || changed.length < 2) continue;
        return { name: titleCase(tokens.map((x, k) => (k === i ? changed : x)).join(" ")), birthDate: dob(e) };
      }
    }
    return null;
  });
  each("weak-alias-typo", ({ e }) => {
    const weak = weakOf(e);
    if (!weak.length) return null;
    const t = editToken(pick(weak), false);
    return t ? { name: titleCase(t.join(" ")), birthDate: dob(e) } : null;
  });
  each("weak-alias-reordered", ({ e }) => {
    const weak = weakOf(e).filter((t) => t.length >= 2);
    if (!weak.length) return null;
    const t = pick(weak);
    const order = shuffled(t.map((_, k) => k));
    if (order.every((k, i) => k === i)) order.reverse();
    return { name: titleCase(order.map((k) => t[k]).join(" ")), birthDate: dob(e) };
  });
  // A different kunya: Abu X against Abu Y, where Y is another listed kunya's name that looks like X
  // (Jaro-Winkler 0.75 or more) but is neither the same consonant shape nor one letter away from it.
  const kunyaNames = [
    ...new Set(people.flatMap((p) => weakOf(p.e).flatMap((t) => (t.length === 2 && t[0] === "abu" && t[1]!.length >= 3 ? [t[1]!] : [])))),
  ].sort();
  const shape = (t: string) => t.replace(/(.)\1+/g, "$1").replace(/[aeiouy]+/g, "_");
  const oneApart = (a: string, b: string) => {
    if (Math.abs(a.length - b.length) > 1) return false;
    const [s, t] = a.length <= b.length ? [a, b] : [b, a];
    let i = 0;
    while (i < s.length && s[i] === t[i]) i++;
    if (s.length === t.length)
      return s.slice(i + 1) === t.slice(i + 1) || (s[i] === t[i + 1] && s[i + 1] === t[i] && s.slice(i + 2) === t.slice(i + 2));
    return s.slice(i) === t.slice(i + 1);
  };
  each(
    "weak-alias-other-kunya",
    ({ e }) => {
      const kunyas = weakOf(e).filter((t) => t.length === 2 && t[0] === "abu" && t[1]!.length >= 3);
      if (!kunyas.length) return null;
      const x = pick(kunyas)[1]!;
      // Not a spelling of any word of the entry's own weak aliases (Abu Solayman for Abu Sulaiyman).
      const own = weakOf(e).flat();
      const near = kunyaNames.filter(
        (y) => jaroWinkler(x, y) >= 0.75 && own.every((w) => w !== y && shape(w) !== shape(y) && !oneApart(w, y)),
      );
      return near.length ? { name: titleCase(`abu ${pick(near)}`) } : null;
    },
    false,
  );
  // A weak alias that is one common word or first name (Hamza, Chepe) as the first name of an
  // unrelated person: the surname of another listed person.
  each(
    "weak-alias-word-in-other-name",
    ({ e, surname }) => {
      const single = weakOf(e).filter((t) => t.length === 1 && t[0]!.length >= 3);
      if (!single.length) return null;
      const word = pick(single)[0]!;
      const own = surname.join(" ").toLowerCase();
      for (let tries = 0; tries < 20; tries++) {
        const other = pick(people).surname.join(" ").toLowerCase();
        if (jaroWinkler(other, own) < 0.8) return { name: titleCase(`${word} ${other}`) };
      }
      return null;
    },
    false,
  );
  return pairs.map((p, i) => ({ id: i + 1, ...p }));
}

/** The stored file: the pairs with a description, as `npm run bench:screening` and the quality test read them. */
export function pairsFileText(pairs: readonly LabelledPair[]): string {
  const description =
    "Query/entry pairs generated by src/server/testing/ofac-quality.ts (fixed seed) from tests/fixtures/ofac-sdn/SDN.CSV + ALT.CSV, a sample of OFAC's real SDN list. match=true: the query names that entry; match=false: a different person with a look-alike name. See docs/screening.md § Quality on a real list.";
  // One pair a line: small, and a change to the generator shows as a readable diff.
  return `{"description": ${JSON.stringify(description)},\n"pairs": [\n${pairs.map((p) => JSON.stringify(p)).join(",\n")}\n]}\n`;
}

export function readStoredPairs(): LabelledPair[] {
  return (JSON.parse(fs.readFileSync(OFAC_PAIRS_FILE, "utf8")) as { pairs: LabelledPair[] }).pairs;
}

export type KindFigures = { kind: PairKind; pairs: number; matched: number; rate: number };
export type Evaluation = {
  recall: number;
  falsePositiveRate: number;
  positives: number;
  negatives: number;
  byKind: KindFigures[];
  wrong: { id: number; kind: PairKind }[];
};

/** Screens every pair's query against the given list versions (whole path) and counts by kind. */
export async function evaluatePairs(
  db: DbOrTx,
  versions: { id: string; list: string; versionHash: string }[],
  pairs: readonly LabelledPair[],
): Promise<Evaluation> {
  const byKind = new Map<PairKind, { pairs: number; matched: number }>();
  const wrong: Evaluation["wrong"] = [];
  // A few screens at a time: one waits for the database while another scores. Counted in pair order.
  const found: boolean[] = new Array(pairs.length);
  let next = 0;
  const worker = async () => {
    while (next < pairs.length) {
      const k = next++;
      const p = pairs[k]!;
      const { matches } = await findMatches(db, p.query, { versions });
      found[k] = matches.some((m) => m.externalId === p.entryId);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  for (const [n, p] of pairs.entries()) {
    const hit = found[n]!;
    const k = byKind.get(p.kind) ?? { pairs: 0, matched: 0 };
    k.pairs++;
    if (hit) k.matched++;
    byKind.set(p.kind, k);
    if (hit !== p.match) wrong.push({ id: p.id, kind: p.kind });
  }
  const sum = (kinds: readonly PairKind[], f: "pairs" | "matched") => kinds.reduce((a, k) => a + (byKind.get(k)?.[f] ?? 0), 0);
  const positives = sum(POSITIVE_KINDS, "pairs");
  const negatives = sum(NEGATIVE_KINDS, "pairs");
  return {
    recall: sum(POSITIVE_KINDS, "matched") / positives,
    falsePositiveRate: sum(NEGATIVE_KINDS, "matched") / negatives,
    positives,
    negatives,
    byKind: [...POSITIVE_KINDS, ...NEGATIVE_KINDS].map((kind) => {
      const k = byKind.get(kind) ?? { pairs: 0, matched: 0 };
      return { kind, ...k, rate: k.pairs ? k.matched / k.pairs : 0 };
    }),
    wrong,
  };
}

/** One row of docs/screening.md's tables: `| label | value |`. */
export function documentedFigure(label: string): number {
  const doc = fs.readFileSync(path.resolve(process.cwd(), "docs/screening.md"), "utf8");
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`\\| ${escaped} \\| ([0-9.]+) \\|`).exec(doc);
  if (!m) throw new Error(`docs/screening.md has no "| ${label} | … |" row`);
  return Number(m[1]);
}
