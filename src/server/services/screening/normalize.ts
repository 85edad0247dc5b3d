import anyAscii from "any-ascii";
import doubleMetaphone from "talisman/phonetics/double-metaphone";

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
  return token.replace(/[aeiouy]/g, "").replace(/(.)\1+/g, "$1");
}

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
