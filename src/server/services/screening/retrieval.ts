import { type DbOrTx, Prisma } from "../../db/client";
import { initialKey, oneEditApart, phoneticCodes, retrievalKeys, skeleton } from "./normalize";
import { maxAdjustment, nameScoreCeiling, tokenWeight } from "./score";

/** A list entry as a screen scores it. */
export type CandidateRow = {
  id: string;
  listVersionId: string;
  externalId: string;
  name: string;
  normalizedNames: string[];
  birthDates: string[];
  countries: string[];
  topics: string[];
  programme: string | null;
};

/**
 * A query word that retrieval may require an entry to cover, with the keys that say an entry
 * could: its own retrieval keys (the same sound or consonant skeleton), the keys of every word one
 * typing error away (score.ts counts those as agreeing whatever they sound like), and the key of
 * its initial (an entry's initial set against the word scores 0.9).
 */
type Word = { weight: number; cover: string[] };

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** Every word one letter changed, added, dropped or two neighbours swapped away from `t`. */
function oneEditAway(t: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= t.length; i++) {
    for (const c of ALPHABET) out.add(t.slice(0, i) + c + t.slice(i));
    if (i === t.length) break;
    out.add(t.slice(0, i) + t.slice(i + 1));
    if (i + 1 < t.length) out.add(t.slice(0, i) + t[i + 1] + t[i] + t.slice(i + 2));
    for (const c of ALPHABET) out.add(t.slice(0, i) + c + t.slice(i + 1));
  }
  out.delete(t);
  return out;
}

// Query words repeat across screens (common first names): their cover keys are kept, bounded.
const coverMemo = new Map<string, string[] | null>();

/**
 * The keys of entries that could cover `t`, or null when retrieval must not rely on `t` (a word
 * with digits, a consonant skeleton under two letters, or without keys): such a word is counted as
 * covered by every entry. A word one typing error away is found by its consonant skeleton (stored
 * for every word whose skeleton has two letters), or, for a shorter skeleton, its sound.
 */
function coverKeys(t: string): string[] | null {
  if (coverMemo.has(t)) return coverMemo.get(t)!;
  let keys: Set<string> | null = null;
  const own = retrievalKeys([t]);
  if (!/\d/.test(t) && skeleton(t).length >= 2 && own.length > 0) {
    keys = new Set(own);
    keys.add(initialKey(t[0]!));
    for (const v of oneEditAway(t)) {
      // score.ts's typing error: both words three letters or more, one of them four.
      if (v.length < 3 || Math.max(v.length, t.length) < 4) continue;
      const sk = skeleton(v);
      if (sk.length >= 2) {
        keys.add(`s:${sk}`);
        continue;
      }
      const codes = phoneticCodes(v);
      if (codes.length === 0) {
        keys = null; // an entry word without any key could not be found through this word
        break;
      }
      for (const c of codes) keys.add(`m:${c}`);
    }
  }
  const out = keys ? [...keys] : null;
  if (coverMemo.size >= 20_000) coverMemo.clear();
  coverMemo.set(t, out);
  return out;
}

/**
 * The sets of query words (indices into `words`) of which an entry must cover all to be able to
 * reach `need` as a name score, minimal ones only; empty when no word needs covering (every entry
 * sharing a key must be scored).
 */
function sufficientSets(words: readonly { weight: number }[], always: number, need: number): number[][] {
  const n = words.length;
  const total = always + words.reduce((s, w) => s + w.weight, 0);
  const sets: number[][] = [];
  for (let mask = 0; mask < 1 << n; mask++) {
    let covered = always;
    for (let i = 0; i < n; i++) if (mask & (1 << i)) covered += words[i]!.weight;
    if (nameScoreCeiling(covered, total - covered) < need) continue;
    if (sets.some((s) => s.every((i) => mask & (1 << i)))) continue; // a smaller set is already enough
    const set = [...Array(n).keys()].filter((i) => mask & (1 << i));
    if (set.length === 0) return [];
    sets.push(set);
  }
  // Masks in increasing order may meet a superset before its subset: keep the minimal ones.
  return sets.filter((s) => !sets.some((o) => o !== s && o.length < s.length && o.every((i) => s.includes(i))));
}

/**
 * Up to this many key holdings (entries per key, summed over the query's keys) every entry sharing
 * a key is read and scored; above it, only those that could reach the threshold.
 */
const READ_ALL_UP_TO = 1_000;

/** Words whose sets are enumerated; a longer name falls back to every entry sharing a key. */
const MAX_WORDS = 8;

/**
 * The candidates of a screen: the entries of `versions` sharing a retrieval key with the query
 * (docs/screening.md § Retrieval) that could reach `threshold`, read from the rarest keys first.
 *
 * An entry scores at least the threshold only if it covers enough of the query's words
 * (nameScoreCeiling: for a name of two words, both; of three, two). An entry covers a word when
 * it shares one of the word's retrieval keys, holds a word one typing error away, or holds its
 * initial; a word of the query without reliable keys (digits, a skeleton under two letters) counts
 * as covered. So for each minimal set of words that is enough, the entries covering its rarest
 * word (by the version's key counts) are read and kept when they cover the others too and share a
 * key with the query. A common first name then costs nothing beside a rare surname, and the
 * answer is exactly that of scoring every entry sharing a key: nothing that could match is left
 * out.
 */
export async function retrieveCandidates(
  db: DbOrTx,
  input: {
    versionIds: string[];
    tokens: string[];
    birthDate?: string | null;
    country?: string | null;
    threshold: number;
    /** Key holdings up to which every entry sharing a key is read (default READ_ALL_UP_TO; tests pass 0). */
    readAllUpTo?: number;
  },
): Promise<CandidateRow[]> {
  const keys = retrievalKeys(input.tokens);
  if (input.versionIds.length === 0 || keys.length === 0) return [];
  // Few entries share the query's keys (a small list, rare names): reading them all costs less
  // than working out which could match (the keys of every word a typing error away).
  const [held] = await db.$queryRaw<{ entries: number }[]>`
    SELECT coalesce(sum(entries), 0)::int AS entries FROM screening_key_counts
    WHERE "listVersionId" = ANY(${input.versionIds}::uuid[]) AND key = ANY(${keys}::text[])`;
  if ((held?.entries ?? 0) <= (input.readAllUpTo ?? READ_ALL_UP_TO)) return everySharingAKey(db, input.versionIds, keys);
  const need = input.threshold - maxAdjustment(input);
  const words: Word[] = [];
  let always = 0;
  for (const t of input.tokens) {
    const cover = coverKeys(t);
    if (cover) words.push({ weight: tokenWeight(t), cover });
    else always += tokenWeight(t);
  }
  const sets = words.length > 0 && words.length <= MAX_WORDS ? sufficientSets(words, always, need) : [];
  if (sets.length === 0) return everySharingAKey(db, input.versionIds, keys);

  // The ids come from the key table alone (index-only scans of its primary key, however common a
  // word's keys): for each set, the entries covering every word of it and sharing a key with the
  // query. Only those entries are then read, one by one through their primary key (OFFSET 0 keeps
  // the planner from turning the lateral read into a scan of the whole table).
  const holding = (k: string[]) =>
    Prisma.sql`SELECT "entryId" FROM screening_entry_keys WHERE "listVersionId" = ANY(${input.versionIds}::uuid[]) AND key = ANY(${k}::text[])`;
  const bySet = sets.map(
    (set) => Prisma.sql`(${Prisma.join([...set.map((i) => holding(words[i]!.cover)), holding(keys)], " INTERSECT ")})`,
  );
  return db.$queryRaw<CandidateRow[]>`
    WITH k AS MATERIALIZED (${Prisma.join(bySet, " UNION ")})
    SELECT x.* FROM k CROSS JOIN LATERAL (
      SELECT e.id::text, e."listVersionId"::text, e."externalId", e.name, e."normalizedNames", e."birthDates", e.countries, e.topics, e.programme
      FROM screening_entries e WHERE e.id = k."entryId" OFFSET 0) x`;
}

/** Every entry sharing a key with the query (the candidates when no word can be required), read from the key table's primary key. */
export function everySharingAKey(db: DbOrTx, versionIds: string[], keys: string[]): Promise<CandidateRow[]> {
  return db.$queryRaw<CandidateRow[]>`
    WITH hits AS (
      SELECT DISTINCT "entryId" FROM screening_entry_keys
      WHERE "listVersionId" = ANY(${versionIds}::uuid[]) AND key = ANY(${keys}::text[]))
    SELECT e.id::text, e."listVersionId"::text, e."externalId", e.name, e."normalizedNames", e."birthDates", e.countries, e.topics, e.programme
    FROM hits JOIN screening_entries e ON e.id = hits."entryId"`;
}

/**
 * The same bound for a re-screen scoring a list change in memory (monitoring-runs.ts): a test of
 * whether an entry, by its words and stored keys, could reach `threshold` for the query. An entry
 * covers a query word when it holds one of the word's keys, a word one typing error away, or its
 * initial, here compared directly. False only for entries that cannot match, so skipping them
 * changes no answer.
 */
export function reachTest(input: {
  tokens: string[];
  birthDate?: string | null;
  country?: string | null;
  threshold: number;
}): (entryWords: readonly string[], entryKeys: ReadonlySet<string>) => boolean {
  const need = input.threshold - maxAdjustment(input);
  const words: { token: string; weight: number; own: string[] }[] = [];
  let always = 0;
  for (const t of input.tokens) {
    const own = retrievalKeys([t]);
    if (/\d/.test(t) || skeleton(t).length < 2 || own.length === 0) always += tokenWeight(t);
    else words.push({ token: t, weight: tokenWeight(t), own });
  }
  const sets = words.length > 0 && words.length <= MAX_WORDS ? sufficientSets(words, always, need) : [];
  if (sets.length === 0) return () => true;
  return (entryWords, entryKeys) => {
    const covered = words.map(
      (w) =>
        w.own.some((k) => entryKeys.has(k)) ||
        entryWords.some((e) =>
          e.length === 1
            ? e === w.token[0]
            : Math.min(e.length, w.token.length) >= 3 && Math.max(e.length, w.token.length) >= 4 && oneEditApart(e, w.token),
        ),
    );
    return sets.some((set) => set.every((i) => covered[i]));
  };
}
