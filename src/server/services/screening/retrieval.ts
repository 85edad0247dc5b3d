import { type DbOrTx, Prisma, rawQuery } from "../../db/client";
import { KEY_INDEX_PREFIX } from "./key-index";
import { consonantShape, initialKey, isVowelless, oneEditApart, retrievalKeys, skeleton, variantTokens } from "./normalize";
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

/** An entry as retrieval reads it: the row, and its stored keys for the reach test. */
type KeyedRow = CandidateRow & { nameKeys: string[] };

/** The stored key of a word of an entry's names ("w:" and the word), for words of two letters or more (not initials). */
export const WORD_KEY_PREFIX = "w:";
export const wordKey = (word: string): string => `${WORD_KEY_PREFIX}${word}`;
export const hasWordKey = (word: string): boolean => word.length >= 2;

/**
 * A word whose consonant skeleton has under two letters (Ali, Xu, Li, Aya): it has no skeleton key,
 * so a word of the same consonant shape (Ali / Eli), or written without vowels with its skeleton,
 * which score.ts counts as agreeing, may share no key with it. Such words are filed under their
 * skeleton too ("#" and the skeleton), and found there.
 */
const shortSkeleton = (word: string): boolean => skeleton(word).length < 2;

/** What `sameShapeAs` compares of a query word, computed once per screen. */
export type ShapeOf = { skeleton: string; shape: string; vowelless: boolean };
export const shapeOf = (word: string): ShapeOf => ({ skeleton: skeleton(word), shape: consonantShape(word), vowelless: isVowelless(word) });

/**
 * Whether `word` agrees in score.ts with the query word `w` through the consonant shape, or the
 * skeleton of a word written without vowels. Words of one shape have one skeleton (the skeleton
 * is the shape's consonants with repeats merged), so the skeletons (a loop) are compared first and
 * the shapes (two regular expressions) only for the few words that pass: a re-screen asks this of
 * every word of every candidate of every person with a short word in their name.
 */
export function sameShapeAs(word: string, w: ShapeOf): boolean {
  if (skeleton(word) !== w.skeleton) return false;
  return w.vowelless || isVowelless(word) || consonantShape(word) === w.shape;
}

/** The forms a word of an entry is filed under in screening_word_deletions (a query word looks up the same forms of its own). */
export function filingsOf(word: string): string[] {
  const out = word.length >= 3 ? deletionsOf(word) : [];
  if (shortSkeleton(word)) out.push(`#${skeleton(word)}`);
  return out;
}

/** score.ts's typing error: one letter changed, added, dropped or two neighbours swapped, both words three letters or more, one of them four. */
const typo = (a: string, b: string) => Math.min(a.length, b.length) >= 3 && Math.max(a.length, b.length) >= 4 && oneEditApart(a, b);

/**
 * The forms under which a word is filed and looked up (symmetric deletion): the word itself and,
 * from four letters, every form with one letter dropped. Two words are one typing error apart only
 * if they share a form: a changed letter drops to the same form in both, an added letter drops to
 * the shorter word, and two swapped neighbours drop to the same form when the first of the pair is
 * dropped from one and the second from the other (ab → b, ba → b). A word of three letters is a
 * typing error away only from words of four (score.ts), which drop to it, so it needs no deletions.
 * Sharing a form does not make two words one error apart (two changed letters can): the words found
 * are checked with `typo`.
 */
export function deletionsOf(word: string): string[] {
  const out = new Set([word]);
  if (word.length >= 4) for (let i = 0; i < word.length; i++) out.add(word.slice(0, i) + word.slice(i + 1));
  return [...out];
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

/** Words whose sets are enumerated; a longer name falls back to every entry sharing a key. */
const MAX_WORDS = 12;

type Reach = {
  input: { tokens: string[]; birthDate?: string | null; country?: string | null; threshold: number };
  /** The query words retrieval may require an entry to cover, with their own retrieval keys. */
  words: { token: string; weight: number; own: string[]; short: ShapeOf | null }[];
  /** Minimal sets of `words` (indices) of which an entry must cover all; empty: none can be required. */
  sets: number[][];
};

/**
 * Which query words an entry must cover to be able to reach the threshold (nameScoreCeiling: for
 * a name of two words, both; of three, all three without a birth date). A word with digits or
 * without keys is counted as covered by every entry.
 */
function reachOf(input: Reach["input"]): Reach {
  const need = input.threshold - maxAdjustment(input);
  const words: Reach["words"] = [];
  let always = 0;
  for (const t of input.tokens) {
    const own = retrievalKeys([t]);
    if (/\d/.test(t) || own.length === 0) always += tokenWeight(t);
    else words.push({ token: t, weight: tokenWeight(t), own, short: shortSkeleton(t) ? shapeOf(t) : null });
  }
  const sets = words.length > 0 && words.length <= MAX_WORDS ? sufficientSets(words, always, need) : [];
  return { input, words, sets };
}

/**
 * An entry covers a query word when it holds one of the word's keys, a word one typing error away,
 * its initial, or, for a word of a short skeleton, a word of its shape (sameShapeAs; a longer
 * skeleton is a key, so such a word holds it).
 */
function covers(w: Reach["words"][number], entryWords: readonly string[], entryKeys: ReadonlySet<string>): boolean {
  return (
    w.own.some((k) => entryKeys.has(k)) ||
    entryWords.some((e) => (e.length === 1 ? e === w.token[0] : typo(e, w.token) || (w.short !== null && sameShapeAs(e, w.short))))
  );
}

/** A word of the versions that covers query word `w` (filed under a form of `w`'s own, retrieval reads which). */
export const coversWord = (w: ReachWord, x: string) => typo(x, w.token) || (w.short !== null && sameShapeAs(x, w.short));

/** A query word the reach test may require an entry to cover. */
export type ReachWord = Reach["words"][number];

/** The mask of a set of word indices (bit i: word i). */
const maskOf = (set: readonly number[]) => set.reduce((m, i) => m | (1 << i), 0);

/**
 * reachTest's bound as bit masks, for a re-screen that marks which of the change's words cover
 * each query word once a person (monitoring-changes.ts, ChangedEntryIndex.reaches): bit i of an
 * entry's cover is query word i, and the entry can reach the threshold when its cover holds one of
 * `sets`. Null when no word needs covering (every entry sharing a key can).
 */
export function reachMasks(input: Reach["input"]): { words: ReachWord[]; sets: number[] } | null {
  const reach = reachOf(input);
  return reach.sets.length === 0 ? null : { words: reach.words, sets: reach.sets.map(maskOf) };
}

/**
 * Up to this many key holdings (entries per key, summed over the query's keys) every entry sharing
 * a key is read; above it, only those that could reach the threshold.
 */
const READ_ALL_UP_TO = 40;

/**
 * Beside the word of a set held by the fewest entries, the least held of the set's other words is
 * intersected with it in the key table when it is held by at most this many times as many (an
 * index-only scan costs far less per entry than reading the entry); above this many entries only.
 * One word only: the reach test in the read of the entries (narrowRead) does the rest, and each
 * further INTERSECT hashed the whole key range of a common word (bin, abd, al) to remove a few
 * entries (docs/performance.md, "Screening at list sizes").
 */
const INTERSECT_FACTOR = 30;
const INTERSECT_ABOVE = 200;

/** Above this many minimal sets a narrow read reads the key table for every version (one index condition a set). */
const MAX_INDEXED_SETS = 24;

type Source = {
  /** An SQL expression of the versions' ids (uuid[]). */
  ids: Prisma.Sql;
  /** Common table expressions the expression reads (without WITH), e.g. the active versions. */
  ctes?: Prisma.Sql;
  /** More columns of the first statement (with a leading comma). */
  columns?: Prisma.Sql;
};

/**
 * The candidates of a screen: the entries of the versions sharing a retrieval key with the query
 * (docs/screening.md § Retrieval) that could reach the threshold (reachTest's bound), and the
 * first statement's extra columns.
 *
 * The first statement reads the counts of the query's keys, the words of the versions one typing
 * error away from each query word or of its shape (screening_word_deletions, by the word's own
 * forms) and the counts of the keys that say an entry covers the word: its own retrieval keys,
 * its initial, and the "w:" keys of those words. When few entries hold the query's keys, the second
 * statement reads every entry sharing one; otherwise it takes the entries holding a cover key of the rarest words
 * until every minimal set of words enough to reach the threshold holds one of them (intersected
 * with each set's least held other word when that one is not much more common), keeps those sharing a
 * key with the query, and reads them through the primary key, keeping those whose keys cover a
 * whole set (narrowRead); a version with an index of its key arrays is asked for those entries
 * directly (key-index.ts). An entry that can reach the threshold covers every word of some set, so
 * it is among them: the answer is that of scoring every entry sharing a key. Both statements go
 * through rawQuery (outside a transaction, straight to the pool): timed on a 50,000-entry list,
 * the ORM's mapping of their rows of arrays was about a fifth of a median screen.
 */
async function candidatesFrom<X extends object>(
  db: DbOrTx,
  input: Reach["input"] & { readAllUpTo?: number },
  source: Source,
): Promise<{ rows: CandidateRow[]; first: X }> {
  const keys = retrievalKeys(input.tokens);
  const readAll = input.readAllUpTo ?? READ_ALL_UP_TO;
  const reach = reachOf(input);
  const narrow = reach.sets.length > 0;
  const relied = narrow ? reach.words : [];
  const dels = [...new Set(relied.flatMap((w) => filingsOf(w.token)))];
  const base = [...new Set(relied.flatMap((w) => [...w.own, initialKey(w.token[0]!)]))];
  const inVersions = Prisma.sql`"listVersionId" = ANY((SELECT ids FROM vs)::uuid[])`;
  // A statement simple to plan (planning the read of the entries along with it cost more than
  // running it): the counts of the query's keys, of its words' cover keys and of the "w:" keys of
  // the words filed under a form of a query word's own (which names those words).
  const [first] = await rawQuery<X & { versionIds: string[]; indexed: string[]; counts: Record<string, number> }>(
    db,
    Prisma.sql`
    WITH ${source.ctes ? Prisma.sql`${source.ctes},` : Prisma.empty}
    vs AS MATERIALIZED (SELECT ${source.ids} AS ids)
    SELECT (SELECT ids FROM vs)::text[] AS "versionIds",
      (SELECT coalesce(array_agg(v::text), '{}') FROM unnest((SELECT ids FROM vs)::uuid[]) v
         JOIN pg_index i ON i.indexrelid = to_regclass(${KEY_INDEX_PREFIX}::text || replace(v::text, '-', ''))
         WHERE i.indisvalid) AS indexed,
      (SELECT coalesce(json_object_agg(key, n), '{}') FROM (
        SELECT key, sum(entries)::int AS n FROM screening_key_counts
        WHERE ${inVersions} AND key = ANY(${[...new Set([...keys, ...base])]}::text[] || ARRAY(
          SELECT DISTINCT ${WORD_KEY_PREFIX}::text || word FROM screening_word_deletions WHERE ${inVersions} AND deletion = ANY(${dels}::text[])))
        GROUP BY key) c) AS counts
      ${source.columns ?? Prisma.empty}`,
  );
  const out = first!;
  const versionIds = out.versionIds ?? [];
  const held = keys.reduce((sum, k) => sum + (out.counts[k] ?? 0), 0);
  const found = Object.keys(out.counts)
    .filter((k) => k.startsWith(WORD_KEY_PREFIX))
    .map((k) => k.slice(WORD_KEY_PREFIX.length));
  let rows: CandidateRow[];
  if (versionIds.length === 0 || keys.length === 0 || held === 0) rows = [];
  else if (!narrow || held <= readAll) rows = keepReaching(reach, await everySharingAKeyKeyed(db, versionIds, keys));
  else rows = await narrowRead(db, versionIds, keys, reach, out.counts, found, out.indexed ?? []);
  return { rows, first: out };
}

/** The rows that could reach the threshold (reachTest), without their keys. */
function keepReaching(reach: Reach, rows: KeyedRow[]): CandidateRow[] {
  const out: CandidateRow[] = [];
  for (const { nameKeys, ...row } of rows) {
    if (reach.sets.length > 0) {
      const words = [...new Set(row.normalizedNames.flatMap(variantTokens))];
      const keys = new Set(nameKeys);
      if (!reach.sets.some((set) => set.every((i) => covers(reach.words[i]!, words, keys)))) continue;
    }
    out.push(row);
  }
  return out;
}

/**
 * The second statement of a narrow read (candidatesFrom). It applies the reach test itself: an
 * entry covers query word i when its stored keys meet the word's cover keys (its own keys, its
 * initial, the "w:" keys of the words one typing error away or of its shape: what `covers` asks of
 * the entry's words), and it is kept when the words it covers hold one of the minimal sets. So the
 * entries that cannot reach the threshold never leave PostgreSQL, nor do the stored keys. For a
 * version in `indexed` (a valid index of its key arrays) the same condition is the read's WHERE,
 * which the index answers (docs/screening.md, "The key arrays' index").
 */
function narrowRead(
  db: DbOrTx,
  versionIds: string[],
  keys: string[],
  reach: Reach,
  counts: Record<string, number>,
  found: string[],
  indexed: string[],
): Promise<CandidateRow[]> {
  const cover = reach.words.map((w) => [
    ...new Set([...w.own, initialKey(w.token[0]!), ...found.filter((x) => coversWord(w, x)).map(wordKey)]),
  ]);
  // Versions with a valid index of their key arrays (key-index.ts) are asked for the entries
  // covering a whole set, one SELECT each (the index is partial on its version); the others read
  // the key table as below. A name with very many minimal sets reads the key table everywhere.
  const nk = Prisma.sql`e."nameKeys"`;
  const viaIndex = reach.sets.length <= MAX_INDEXED_SETS ? versionIds.filter((v) => indexed.includes(v)) : [];
  const rest = versionIds.filter((v) => !viaIndex.includes(v));
  const anySet = Prisma.join(
    reach.sets.map(
      (set) =>
        Prisma.sql`(${Prisma.join(
          set.map((i) => Prisma.sql`${nk} && ${cover[i]!}::text[]`),
          " AND ",
        )})`,
    ),
    " OR ",
  );
  const indexedReads = viaIndex.map(
    (v) => Prisma.sql`
    SELECT e.id::text, e."listVersionId"::text, e."externalId", e.name, e."normalizedNames", e."birthDates", e.countries, e.topics, e.programme
    FROM screening_entries e WHERE e."listVersionId" = ${v}::uuid AND ${nk} && ${keys}::text[] AND (${anySet})`,
  );
  if (rest.length === 0) return rawQuery<CandidateRow>(db, Prisma.join(indexedReads, " UNION ALL "));
  const held = cover.map((c) => c.reduce((s, k) => s + (counts[k] ?? 0), 0));
  const byHeld = (a: number, b: number) => held[a]! - held[b]! || a - b;
  const holding = (i: number) =>
    Prisma.sql`SELECT "entryId" FROM screening_entry_keys WHERE "listVersionId" = ANY(${rest}::uuid[]) AND key = ANY(${cover[i]!}::text[])`;
  // Words read from, rarest first, until every set holds one (a name of nine words whose sets are
  // any four of five heavy words needs two). An entry that can reach the threshold covers every
  // word of some set, so it is among the holders of the first word read from in that set.
  const groups: number[][] = [];
  let open = reach.sets;
  for (const i of [...cover.keys()].sort(byHeld)) {
    const first = open.filter((set) => set.includes(i));
    if (first.length === 0) continue;
    open = open.filter((set) => !set.includes(i));
    // Each set's least held other word is its partner; the holders of i are intersected with each
    // partner in turn (an entry covering a whole set holds i and that set's partner), unless a set
    // has none close enough in holdings, when they are read whole.
    const partners = new Set<number>();
    for (const set of held[i]! > INTERSECT_ABOVE ? first : []) {
      const p = set.filter((j) => j !== i).sort(byHeld)[0];
      if (p === undefined || held[p]! > INTERSECT_FACTOR * held[i]!) {
        partners.clear();
        break;
      }
      partners.add(p);
    }
    if (partners.size === 0) groups.push([i]);
    else for (const p of [...partners].sort((a, b) => a - b)) groups.push([i, p]);
    if (open.length === 0) break;
  }
  const bySet = groups.map((g) => Prisma.sql`(${Prisma.join(g.map(holding), " INTERSECT ")})`);
  // Bit i of `covered`: the entry covers word i; a set is the mask of its words (at most MAX_WORDS bits).
  const covered = Prisma.join(
    cover.map((c, i) => Prisma.sql`(CASE WHEN e."nameKeys" && ${c}::text[] THEN ${1 << i}::int ELSE 0 END)`),
    " | ",
  );
  const setMasks = reach.sets.map(maskOf);
  // OFFSET 0 keeps the planner from turning the lateral read into a scan of the whole table.
  return rawQuery<CandidateRow>(
    db,
    Prisma.sql`
    WITH k AS MATERIALIZED (SELECT DISTINCT "entryId" FROM (${Prisma.join(bySet, " UNION ")}) u)
    SELECT x.id, x."listVersionId", x."externalId", x.name, x."normalizedNames", x."birthDates", x.countries, x.topics, x.programme
    FROM k CROSS JOIN LATERAL (
      SELECT e.id::text, e."listVersionId"::text, e."externalId", e.name, e."normalizedNames", e."birthDates", e.countries, e.topics,
        e.programme, ${covered} AS covered
      FROM screening_entries e WHERE e.id = k."entryId" AND e."nameKeys" && ${keys}::text[] OFFSET 0) x
    WHERE EXISTS (SELECT 1 FROM unnest(${setMasks}::int[]) s(m) WHERE x.covered & s.m = s.m)
    ${indexedReads.length ? Prisma.sql`UNION ALL ${Prisma.join(indexedReads, " UNION ALL ")}` : Prisma.empty}`,
  );
}

/**
 * The candidates of a screen against `versionIds` (candidatesFrom): the entries sharing a
 * retrieval key with the query that could reach `threshold`: two statements (one when no entry
 * holds a key of the query).
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
  if (input.versionIds.length === 0 || retrievalKeys(input.tokens).length === 0) return [];
  return (await candidatesFrom(db, input, { ids: Prisma.sql`${input.versionIds}::uuid[]` })).rows;
}

/**
 * retrieveCandidates against the versions that the common table expressions `ctes` name (`ids`,
 * uuid[]), with more columns read in its first statement (`columns`), for a caller that reads
 * the list versions and the candidates together (screen.ts, screenPersonForWrite).
 */
export function retrieveCandidatesWith<X extends object>(
  db: DbOrTx,
  input: { tokens: string[]; birthDate?: string | null; country?: string | null; threshold: number },
  source: Source,
): Promise<{ rows: CandidateRow[]; first: X }> {
  return candidatesFrom<X>(db, input, source);
}

function everySharingAKeyKeyed(db: DbOrTx, versionIds: string[], keys: string[]): Promise<KeyedRow[]> {
  return rawQuery<KeyedRow>(
    db,
    Prisma.sql`
    WITH hits AS (
      SELECT DISTINCT "entryId" FROM screening_entry_keys
      WHERE "listVersionId" = ANY(${versionIds}::uuid[]) AND key = ANY(${keys}::text[]))
    SELECT e.id::text, e."listVersionId"::text, e."externalId", e.name, e."normalizedNames", e."birthDates", e.countries, e.topics,
      e.programme, e."nameKeys"
    FROM hits JOIN screening_entries e ON e.id = hits."entryId"`,
  );
}

/** Every entry sharing a key with the query (what the retrieval tests compare with), read from the key table's primary key. */
export async function everySharingAKey(db: DbOrTx, versionIds: string[], keys: string[]): Promise<CandidateRow[]> {
  return (await everySharingAKeyKeyed(db, versionIds, keys)).map(({ nameKeys: _, ...row }) => row);
}

/**
 * The same bound as a test of whether an entry, by its words and stored keys, could reach
 * `threshold` for the query. An entry covers a query word when it holds one of the word's keys, a
 * word one typing error away, or its initial, here compared directly. False only for entries that
 * cannot match, so skipping them changes no answer. The reference the narrow read and a
 * re-screen's marks (reachMasks, ChangedEntryIndex.reaches) are tested against.
 */
export function reachTest(input: {
  tokens: string[];
  birthDate?: string | null;
  country?: string | null;
  threshold: number;
}): (entryWords: readonly string[], entryKeys: ReadonlySet<string>) => boolean {
  const reach = reachOf(input);
  if (reach.sets.length === 0) return () => true;
  return (entryWords, entryKeys) => {
    const covered = reach.words.map((w) => covers(w, entryWords, entryKeys));
    return reach.sets.some((set) => set.every((i) => covered[i]));
  };
}
