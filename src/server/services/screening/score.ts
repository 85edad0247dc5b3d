import jaroWinkler from "talisman/metrics/jaro-winkler.js";
import {
  consonantShape,
  isParticle,
  isPatronymic,
  isVowelless,
  isWeakAliasVariant,
  oneEditApart,
  patronymicOfSurname,
  phoneticCodes,
  skeleton,
  transliterationShape,
  variantTokens,
} from "./normalize";

/**
 * Scoring of one query against one list entry. Pure and deterministic, so a stored breakdown can
 * be recomputed from the same inputs. Weights and the threshold are explained in docs/screening.md
 * and checked by the labelled sets (fixtures/screening/labelled-pairs.json and, from OFAC's real
 * list, tests/fixtures/ofac-sdn/labelled-pairs.json). Memoised token comparisons change no score.
 */
export const SCORING_VERSION = "2026-11-27.1";
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
  /** Present (true) when the best name is a weak alias, matched under its stricter bar (docs/screening.md § Scoring). */
  weakAlias?: true;
  /** Token-aligned Jaro-Winkler similarity, 0–1. */
  jaroWinkler: number;
  /** Weighted share of query tokens with an agreeing twin (Double Metaphone, consonant shape, one typo), 0–1. */
  phonetic: number;
  /** W_STRING × jaroWinkler + W_PHONETIC × phonetic − 0.05 × different words (docs/screening.md § Scoring). */
  name: number;
  /** Added for birth date agreement (positive) or disagreement (negative); 0 when either is unknown. */
  birthDate: number;
  /** Added for country agreement or disagreement; 0 when either is unknown. */
  country: number;
  total: number;
};

/** Similarity of two tokens one typing error apart (3 letters or more, one of them 4), whatever the letter. */
const ONE_EDIT_SIMILARITY = 0.93;
/** Similarity of a surname and the patronymic of the same stem (Sergeev / Sergeevich). */
const PATRONYMIC_SIMILARITY = 0.5;
/** A patronymic counts half a token: first name and surname say more about who someone is. */
const PATRONYMIC_WEIGHT = 0.5;
/** A particle (al, bin, de, van…) counts a quarter: it says almost nothing about who someone is. */
const PARTICLE_WEIGHT = 0.25;
/** Two spelled-out tokens that neither sound alike nor are one typo apart: their similarity counts half. */
const UNALIKE_FACTOR = 0.5;
/** Added for an exact birth date in common: the most a birth date adds. */
const BIRTH_DATE_CONFIRMS = 0.06;
/** Added for a country in common: the most a country adds. */
const COUNTRY_AGREES = 0.03;
/** Taken off the name score for each such pair (a patronymic's half): one different word in a long name still counts. */
const CONTRADICTION = 0.05;

const typo = (a: string, b: string) => Math.min(a.length, b.length) >= 3 && Math.max(a.length, b.length) >= 4 && oneEditApart(a, b);

type Features = {
  shape: string;
  /** The shape after transliteration choices (ph/f, q/k, w/v…), for weak aliases. */
  spelling: string;
  skeleton: string;
  codes: string[];
  vowelless: boolean;
  patronymic: boolean;
  weight: number;
};
type Cell = { s: number; alike: boolean };

// A screen compares its few query tokens with the words of hundreds of candidates, and those words
// repeat across candidates and screens (Muhammad, al, Ali…): per-token features and token-pair
// results are memoised, bounded like the phonetic codes.
const MEMO_LIMIT = 500_000;
const featureMemo = new Map<string, Features>();
const pairMemo = new Map<string, Map<string, Cell>>();
let pairCount = 0;

function features(t: string): Features {
  let f = featureMemo.get(t);
  if (!f) {
    const patronymic = isPatronymic(t);
    f = {
      shape: consonantShape(t),
      spelling: transliterationShape(t),
      skeleton: skeleton(t),
      codes: phoneticCodes(t),
      vowelless: isVowelless(t),
      patronymic,
      weight: isParticle(t) ? PARTICLE_WEIGHT : patronymic ? PATRONYMIC_WEIGHT : 1,
    };
    if (featureMemo.size >= MEMO_LIMIT) featureMemo.clear();
    featureMemo.set(t, f);
  }
  return f;
}

const weight = (t: string) => features(t).weight;

/** A query word's weight in the name score: 1, a patronymic ½, a particle ¼. */
export const tokenWeight = weight;

/**
 * The highest name score an entry can reach when only query words of total weight `covered` may
 * agree with one of its words (or be set against an initial of theirs), and the spelled-out words
 * (two letters or more) of weight `uncovered` can at best be set against a different word or
 * nothing. It follows nameScore: every pair adds at most its weight to the similarity sum and the
 * query's weight of it, an agreeing pair at most its weight to the phonetic share, and the entry's
 * coverage is at most 1. An uncovered word set against a word of the entry is a different word:
 * it adds at most half its weight to the similarity sum and costs CONTRADICTION times its weight;
 * left unpaired (or set against an initial of another letter) it adds nothing, so it adds the
 * better of the two. A heavier entry word against it only lowers the score while the similarity
 * share is at least half; below half the share adds at most W_STRING × QUERY_COVERAGE ×
 * UNALIKE_FACTOR, which is the floor taken. Retrieval uses it to skip entries that could not reach
 * the threshold (retrieval.ts); it changes no score.
 */
export function nameScoreCeiling(covered: number, uncovered: number): number {
  const total = covered + uncovered;
  if (total <= 0) return 1;
  const share = W_STRING * QUERY_COVERAGE;
  const unalike = uncovered * Math.max(0, (share * UNALIKE_FACTOR) / total - CONTRADICTION);
  const similarity = Math.max((share * covered) / total + unalike, share * UNALIKE_FACTOR);
  return similarity + W_STRING * (1 - QUERY_COVERAGE) + W_PHONETIC * (covered / total);
}

/** The most birth date and country can add to a name score (birthDateAdjustment, countryAdjustment) for this query. */
export const maxAdjustment = (q: { birthDate?: string | null; country?: string | null }): number =>
  (q.birthDate ? BIRTH_DATE_CONFIRMS : 0) + (q.country ? COUNTRY_AGREES : 0);

/**
 * Similarity and phonetic agreement of two tokens.
 *
 * Similarity: one-letter tokens are initials and agree (0.9) with any token starting with that
 * letter; two tokens one typing error apart score at least 0.93, also when the error is the first
 * letter (where Jaro-Winkler gives no prefix bonus); a surname never stands for the patronymic of
 * its stem (0.5); otherwise Jaro-Winkler.
 *
 * Agreement: the same consonant shape (Mohammed / Muhammad), one typing error, a consonant
 * skeleton shared with a token written without vowels (Arabic script: "mhmd"), or the same Double
 * Metaphone code. Two spelled-out names sharing only a skeleton (Mahmoud / Mohammad) do not agree.
 */
function compareTokens(a: string, b: string): Cell {
  let inner = pairMemo.get(a);
  const known = inner?.get(b);
  if (known) return known;
  const cell = computeCell(a, b);
  if (pairCount >= MEMO_LIMIT) {
    pairMemo.clear();
    pairCount = 0;
    inner = undefined;
  }
  if (!inner) {
    inner = new Map();
    pairMemo.set(a, inner);
  }
  inner.set(b, cell);
  pairCount++;
  return cell;
}

function computeCell(a: string, b: string): Cell {
  if (a === b) return { s: 1, alike: true };
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? { s: 0.9, alike: true } : { s: 0, alike: false };
  const fa = features(a);
  const fb = features(b);
  if ((fa.patronymic || fb.patronymic) && patronymicOfSurname(a, b)) return { s: PATRONYMIC_SIMILARITY, alike: false };
  const oneTypo = typo(a, b);
  const jw = jaroWinkler(a, b);
  const s = oneTypo ? Math.max(jw, ONE_EDIT_SIMILARITY) : jw;
  if (fa.shape === fb.shape || oneTypo) return { s, alike: true };
  if ((fa.vowelless || fb.vowelless) && fa.skeleton === fb.skeleton) return { s, alike: true };
  // Double Metaphone keeps four sounds: past that, tokens of quite different lengths
  // ("mohammed", "mohammadhasni") would share a code without sounding alike.
  if (Math.abs(a.length - b.length) > 3) return { s, alike: false };
  return { s, alike: fa.codes.some((c) => fb.codes.includes(c)) };
}

/**
 * The query's tokens compared with entry tokens, each entry token once per screen: a screen scores
 * hundreds of candidates whose names repeat the same words (Muhammad, al, Ali…). Pass one to
 * scoreCandidate for every candidate of the same query; without one, each call makes its own.
 */
export class TokenComparer {
  private readonly rows = new Map<string, Cell[]>();
  constructor(readonly query: readonly string[]) {}
  row(t: string): Cell[] {
    let r = this.rows.get(t);
    if (!r) {
      r = this.query.map((a) => compareTokens(a, t));
      this.rows.set(t, r);
    }
    return r;
  }
}

/**
 * Name score of query tokens `q` against entry tokens `c`. Greedy one-to-one alignment by
 * similarity (names have a handful of tokens, so greedy equals optimal in practice; ties go to the
 * earlier token), which makes the score independent of order.
 */
export function nameScore(q: readonly string[], c: readonly string[], comparer: TokenComparer = new TokenComparer(q)) {
  if (q.length === 0 || c.length === 0) return { jaroWinkler: 0, phonetic: 0, name: 0 };
  const cmp = comparer.query === q ? comparer : new TokenComparer(q);
  const nq = q.length;
  const nc = c.length;
  const rows = c.map((t) => cmp.row(t));
  const usedQ = new Uint8Array(nq);
  const usedC = new Uint8Array(nc);
  let sum = 0;
  let alike = 0;
  let alikeFull = false;
  let contradictions = 0;
  let wq = 0;
  let wc = 0;
  for (const t of q) wq += weight(t);
  for (const t of c) wc += weight(t);
  for (let step = Math.min(nq, nc); step > 0; step--) {
    // The most similar pair of tokens not yet used (the first in query, then entry order on a tie).
    const [i, j] = takeBestPair(rows, usedQ, usedC);
    const a = q[i]!;
    const b = c[j]!;
    const { s, alike: sounds } = rows[j]![i]!;
    const full = a.length > 1 && b.length > 1;
    // An initial agrees with a word of its letter only when the query has the initial ("V. Petrov"
    // for "Viktor Petrov"); a full query word against an initial of the entry is no evidence.
    const agrees = sounds && !(b.length === 1 && a.length > 1);
    // Spelled-out tokens that neither sound alike nor are a typo apart are different words, however
    // many letters they share (Mahmoud / Mohammad): their similarity counts half, and costs.
    const unalike = full && !agrees;
    // A pair weighs as the lighter of its tokens (an initial standing for a patronymic weighs half),
    // but two different words as the heavier (a name set against a particle still counts).
    const wi = weight(a);
    const wj = weight(b);
    const w = unalike ? Math.max(wi, wj) : Math.min(wi, wj);
    wq += w - wi;
    wc += w - wj;
    sum += (unalike ? UNALIKE_FACTOR : 1) * s * w;
    if (unalike) contradictions += w;
    if (agrees) {
      alike += w;
      if (full) alikeFull = true;
    }
  }
  const jw = QUERY_COVERAGE * (sum / wq) + (1 - QUERY_COVERAGE) * (sum / wc);
  // Initials alone are no phonetic evidence: at least one pair of spelled-out tokens must agree.
  const phonetic = alikeFull ? alike / Math.max(wq, Math.min(wc, 2)) : 0;
  return { jaroWinkler: jw, phonetic, name: W_STRING * jw + W_PHONETIC * phonetic - CONTRADICTION * contradictions };
}

/**
 * Birth dates: an exact date confirms, the same year supports, years two or more apart contradict.
 * A year one off with the same day and month is a slip of the pen and counts neither way; a year
 * one off otherwise costs a little.
 */
export function birthDateAdjustment(query: string | null | undefined, entry: readonly string[]): number {
  if (!query || entry.length === 0) return 0;
  const qYear = Number(query.slice(0, 4));
  let best = -Infinity;
  for (const d of entry) {
    const year = Number(d.slice(0, 4));
    let adj: number;
    if (d.length === 10 && d === query) adj = BIRTH_DATE_CONFIRMS;
    else if (year === qYear) adj = d.length === 10 ? -0.02 : 0.03;
    else if (Math.abs(year - qYear) === 1) adj = d.length === 10 && d.slice(4) === query.slice(4) ? 0 : -0.04;
    else adj = YEARS_APART;
    best = Math.max(best, adj);
  }
  return best;
}

/** What birthDateAdjustment adds for an entry whose every birth date is two years or more from the query's. */
const YEARS_APART = -0.2;

/**
 * The entry birth years (by their first four characters, as birthDateAdjustment reads them) that
 * can add more than YEARS_APART to the query's birth date: the query's year and the years on
 * either side. Every date of another year adds exactly YEARS_APART. Null when the query's birth
 * date does not start with a whole year (its neighbours by arithmetic would not be exact). A re-screen uses it to skip
 * entries born years apart without scoring them (monitoring-changes.ts); it changes no score.
 */
export function nearBirthYears(query: string | null | undefined): { years: number[]; apart: number } | null {
  if (!query) return null;
  const year = Number(query.slice(0, 4));
  if (!Number.isSafeInteger(year)) return null;
  return { years: [year - 1, year, year + 1], apart: YEARS_APART };
}

export function countryAdjustment(query: string | null | undefined, entry: readonly string[]): number {
  if (!query || entry.length === 0) return 0;
  return entry.includes(query.toUpperCase()) ? COUNTRY_AGREES : -0.06;
}

const variantMemo = new Map<string, string[]>();
function tokensOf(variant: string): string[] {
  let t = variantMemo.get(variant);
  if (!t) {
    t = variantTokens(variant);
    if (variantMemo.size >= MEMO_LIMIT) variantMemo.clear();
    variantMemo.set(variant, t);
  }
  return t;
}

/** The same tokens, in any order: a weak alias matched exactly. */
function sameTokens(q: readonly string[], c: readonly string[]): boolean {
  if (q.length !== c.length || q.length === 0) return false;
  const a = [...q].sort();
  const b = [...c].sort();
  return a.every((t, i) => t === b[i]);
}

/** Every word of a weak alias matched otherwise than exactly is at least this similar to the query's. */
const WEAK_TOKEN_SIMILARITY = 0.85;
/** A one-word weak alias takes a one-letter slip only when both words are this long (not Karim / Karima). */
const WEAK_SINGLE_TYPO_LENGTH = 6;
/** A weak alias matched otherwise than exactly needs this name score (a strong name: the threshold, after birth date and country). */
const WEAK_ALIAS_BAR = 0.9;

/** Two words with a retrieval key in common: a Double Metaphone code, or a consonant skeleton of two letters or more. */
const sharesKey = (fa: Features, fb: Features) =>
  (fa.skeleton.length >= 2 && fa.skeleton === fb.skeleton) || fa.codes.some((x) => fb.codes.includes(x));

/**
 * A weak alias (a kunya, nickname or short form, docs/screening.md § Scoring) against the query,
 * under a stricter bar than a strong name: the same number of words, aligned one to one (most
 * similar pair first, as nameScore), each pair the same word, or two spelled-out words that are
 * the same word in another transliteration (transliterationShape: Abou / Abu, Muhamad / Muhammad;
 * Jaro-Winkler 0.85 or one letter apart, so Umar / Ammar is refused) or one letter apart (Umer /
 * Umar), which a one-word alias takes only in words of 6 letters or more (Karim / Karima is
 * another name); one aligned pair at least must share a retrieval key. Then the name score must
 * reach 0.9. Null when the alias does not match.
 */
function weakAliasScore(q: readonly string[], c: readonly string[], comparer: TokenComparer) {
  if (sameTokens(q, c)) return { jaroWinkler: 1, phonetic: 1, name: 1 };
  const n = q.length;
  if (n === 0 || n !== c.length) return null;
  // Most aliases fail here, before any Jaro-Winkler: a word with no query word of its spelling or a letter away.
  for (const b of c) {
    const sb = features(b).spelling;
    if (!q.some((a) => a === b || features(a).spelling === sb || oneEditApart(a, b))) return null;
  }
  const rows = c.map((t) => comparer.row(t));
  const usedQ = new Uint8Array(n);
  const usedC = new Uint8Array(n);
  let keyed = false;
  for (let step = 0; step < n; step++) {
    const [i, j] = takeBestPair(rows, usedQ, usedC);
    const best = rows[j]![i]!.s;
    const a = q[i]!;
    const b = c[j]!;
    const fa = features(a);
    const fb = features(b);
    keyed ||= sharesKey(fa, fb);
    if (a === b) continue;
    if (a.length < 2 || b.length < 2) return null;
    const slip = oneEditApart(a, b);
    // Another transliteration: the same spelling shape, and alike (Umar / Ammar share a shape).
    const spelled = fa.spelling === fb.spelling && (best >= WEAK_TOKEN_SIMILARITY || slip);
    // One letter off: a word of an alias of two words or more (Umer / Umar), or one long word.
    const typed = slip && (n >= 2 ? typo(a, b) : Math.min(a.length, b.length) >= WEAK_SINGLE_TYPO_LENGTH);
    if (!spelled && !typed) return null;
  }
  // A screen finds candidates through retrieval keys (docs/screening.md § Retrieval): an alias
  // sharing none with the query would never be scored there, so it matches nowhere.
  if (!keyed) return null;
  const s = nameScore(q, c, comparer);
  return s.name >= WEAK_ALIAS_BAR ? s : null;
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * The best score of the query over the entry's names, with its breakdown. `comparer` (made for
 * `query.tokens`) lets the candidates of one screen share token comparisons; it changes no score.
 */
export function scoreCandidate(query: Query, entry: Candidate, comparer: TokenComparer = new TokenComparer(query.tokens)): Breakdown {
  let best: { matchedName: string; jaroWinkler: number; phonetic: number; name: number; weak?: boolean } = {
    matchedName: "",
    jaroWinkler: 0,
    phonetic: 0,
    name: -1,
  };
  for (const variant of entry.normalizedNames) {
    const tokens = tokensOf(variant);
    if (isWeakAliasVariant(variant)) {
      // Weak alias: its stricter bar or nothing, and a strong name scoring as high is preferred.
      if (best.name >= 1) continue;
      const w = weakAliasScore(query.tokens, tokens, comparer.query === query.tokens ? comparer : new TokenComparer(query.tokens));
      if (w && w.name > best.name) best = { matchedName: tokens.join(" "), ...w, weak: true };
      continue;
    }
    const s = nameScore(query.tokens, tokens, comparer);
    if (s.name > best.name || (best.weak && s.name >= best.name)) best = { matchedName: variant, ...s };
  }
  const birthDate = birthDateAdjustment(query.birthDate, entry.birthDates);
  const country = countryAdjustment(query.country, entry.countries);
  const total = Math.min(1, Math.max(0, best.name + birthDate + country));
  return {
    matchedName: best.matchedName,
    ...(best.weak ? { weakAlias: true as const } : {}),
    jaroWinkler: round(best.jaroWinkler),
    phonetic: round(best.phonetic),
    name: round(Math.max(0, best.name)),
    birthDate,
    country,
    total: round(total),
  };
}

/**
 * The most similar pair of a query token (column) and an entry token (row), neither used yet: the
 * first in query order, then entry order, on a tie. Marks both used; answers [query, entry].
 */
function takeBestPair(rows: { s: number }[][], usedQ: Uint8Array, usedC: Uint8Array): [number, number] {
  let i = -1;
  let j = -1;
  let best = -1;
  for (let x = 0; x < usedQ.length; x++) {
    if (usedQ[x]) continue;
    for (let y = 0; y < usedC.length; y++) {
      if (!usedC[y] && rows[y]![x]!.s > best) {
        best = rows[y]![x]!.s;
        i = x;
        j = y;
      }
    }
  }
  usedQ[i] = 1;
  usedC[j] = 1;
  return [i, j];
}
