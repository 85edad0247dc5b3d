import jaroWinkler from "talisman/metrics/jaro-winkler";
import { phoneticCodes, skeleton } from "./normalize";

/**
 * Scoring of one query against one list entry. Pure and deterministic, so a stored breakdown can
 * be recomputed from the same inputs. Weights and the threshold are explained in docs/screening.md
 * and checked by the labelled set (fixtures/screening/labelled-pairs.json).
 */
export const SCORING_VERSION = "2026-11-23.1";
/** A match is reported at or above this score. */
export const MATCH_THRESHOLD = 0.86;

const W_STRING = 0.7;
const W_PHONETIC = 0.3;
/** Share of the name score that comes from covering the query's tokens (the rest: the entry's). */
const QUERY_COVERAGE = 0.8;

export type Query = { tokens: string[]; birthDate?: string | null; country?: string | null };
export type Candidate = { normalizedNames: string[]; birthDates: string[]; countries: string[] };

export type Breakdown = {
  /** Which of the entry's names (0 = primary, then aliases) scored best, normalised. */
  matchedName: string;
  /** Token-aligned Jaro-Winkler similarity, 0–1. */
  jaroWinkler: number;
  /** Share of query tokens with a phonetic (Double Metaphone) or consonant-skeleton twin, 0–1. */
  phonetic: number;
  /** W_STRING × jaroWinkler + W_PHONETIC × phonetic. */
  name: number;
  /** Added for birth date agreement (positive) or disagreement (negative); 0 when either is unknown. */
  birthDate: number;
  /** Added for country agreement or disagreement; 0 when either is unknown. */
  country: number;
  total: number;
};

/** One-letter tokens are initials: they agree with any token starting with that letter. */
function tokenSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? 0.9 : 0;
  return jaroWinkler(a, b);
}

const soundsAlike = (a: string, b: string): boolean => {
  if (a.length < 2 || b.length < 2) return a[0] === b[0];
  if (skeleton(a) === skeleton(b)) return true;
  const cb = phoneticCodes(b);
  return phoneticCodes(a).some((c) => cb.includes(c));
};

/**
 * Greedy one-to-one alignment of query tokens to entry tokens by similarity (names have a handful
 * of tokens, so greedy equals optimal in practice), which makes the score independent of order.
 */
function align(q: readonly string[], c: readonly string[]) {
  const pairs: { i: number; j: number; s: number }[] = [];
  for (const [i, a] of q.entries()) for (const [j, b] of c.entries()) pairs.push({ i, j, s: tokenSimilarity(a, b) });
  pairs.sort((x, y) => y.s - x.s);
  const usedQ = new Set<number>();
  const usedC = new Set<number>();
  const chosen: typeof pairs = [];
  for (const p of pairs) {
    if (usedQ.has(p.i) || usedC.has(p.j)) continue;
    usedQ.add(p.i);
    usedC.add(p.j);
    chosen.push(p);
  }
  return chosen;
}

export function nameScore(q: readonly string[], c: readonly string[]) {
  if (q.length === 0 || c.length === 0) return { jaroWinkler: 0, phonetic: 0, name: 0 };
  const chosen = align(q, c);
  const sum = chosen.reduce((acc, p) => acc + p.s, 0);
  const jw = QUERY_COVERAGE * (sum / q.length) + (1 - QUERY_COVERAGE) * (sum / c.length);
  const alike = chosen.filter((p) => soundsAlike(q[p.i]!, c[p.j]!)).length;
  const phonetic = alike / Math.max(q.length, Math.min(c.length, 2));
  return { jaroWinkler: jw, phonetic, name: W_STRING * jw + W_PHONETIC * phonetic };
}

/** Birth dates: an exact date confirms, the same year supports, years two or more apart contradict. */
export function birthDateAdjustment(query: string | null | undefined, entry: readonly string[]): number {
  if (!query || entry.length === 0) return 0;
  const qYear = Number(query.slice(0, 4));
  let best = -Infinity;
  for (const d of entry) {
    const year = Number(d.slice(0, 4));
    let adj: number;
    if (d.length === 10 && d === query) adj = 0.06;
    else if (year === qYear) adj = d.length === 10 ? -0.02 : 0.03;
    else if (Math.abs(year - qYear) === 1) adj = -0.06;
    else adj = -0.2;
    best = Math.max(best, adj);
  }
  return best;
}

export function countryAdjustment(query: string | null | undefined, entry: readonly string[]): number {
  if (!query || entry.length === 0) return 0;
  return entry.includes(query.toUpperCase()) ? 0.03 : -0.06;
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/** The best score of the query over the entry's names, with its breakdown. */
export function scoreCandidate(query: Query, entry: Candidate): Breakdown {
  let best = { matchedName: "", jaroWinkler: 0, phonetic: 0, name: -1 };
  for (const variant of entry.normalizedNames) {
    const s = nameScore(query.tokens, variant.split(" ").filter(Boolean));
    if (s.name > best.name) best = { matchedName: variant, ...s };
  }
  const birthDate = birthDateAdjustment(query.birthDate, entry.birthDates);
  const country = countryAdjustment(query.country, entry.countries);
  const total = Math.min(1, Math.max(0, best.name + birthDate + country));
  return {
    matchedName: best.matchedName,
    jaroWinkler: round(best.jaroWinkler),
    phonetic: round(best.phonetic),
    name: round(Math.max(0, best.name)),
    birthDate,
    country,
    total: round(total),
  };
}
