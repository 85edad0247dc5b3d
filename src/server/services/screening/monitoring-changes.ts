import type { DbOrTx } from "../../db/client";
import { variantTokens } from "./normalize";
import { coversWord, filingsOf, type ReachWord, type reachMasks } from "./retrieval";

/** A list entry as the re-screen scores it (the columns scoring and the stored match need). */
export type ChangedEntry = {
  id: string;
  listVersionId: string;
  externalId: string;
  name: string;
  normalizedNames: string[];
  nameKeys: string[];
  birthDates: string[];
  countries: string[];
  topics: string[];
  programme: string | null;
};

/**
 * The entries of `versionId` that are new or changed against `previousId` (same external id with
 * other names, birth dates, countries or topics); every entry when there is no previous version.
 * One join on the (listVersionId, externalId) unique index.
 */
export async function changedPersonEntries(
  db: DbOrTx,
  versionId: string,
  previousId: string | null,
  limit: number,
): Promise<ChangedEntry[]> {
  return db.$queryRaw<ChangedEntry[]>`
    SELECT e.id::text, e."listVersionId"::text, e."externalId", e.name, e."normalizedNames", e."nameKeys", e."birthDates",
           e.countries, e.topics, e.programme
    FROM screening_entries e
    LEFT JOIN screening_entries p ON p."listVersionId" = ${previousId}::uuid AND p."externalId" = e."externalId"
    WHERE e."listVersionId" = ${versionId}::uuid
      AND (p.id IS NULL OR p."normalizedNames" IS DISTINCT FROM e."normalizedNames" OR p."birthDates" IS DISTINCT FROM e."birthDates"
           OR p.countries IS DISTINCT FROM e.countries OR p.topics IS DISTINCT FROM e.topics)
    ORDER BY e.id
    LIMIT ${limit}`;
}

export type ChangedLabel = { listVersionId: string; chainAccount: string; labels: string[]; score: number };

/** Account labels of `versionId` that are new or changed (labels or score) against `previousId`. */
export async function changedAccountLabels(db: DbOrTx, versionId: string, previousId: string | null): Promise<ChangedLabel[]> {
  return db.$queryRaw<ChangedLabel[]>`
    SELECT e."listVersionId"::text, e."chainAccount", e.labels, e.score
    FROM screening_account_labels e
    LEFT JOIN screening_account_labels p ON p."listVersionId" = ${previousId}::uuid AND p."chainAccount" = e."chainAccount"
    WHERE e."listVersionId" = ${versionId}::uuid
      AND (p.id IS NULL OR p.labels IS DISTINCT FROM e.labels OR p.score IS DISTINCT FROM e.score)`;
}

/**
 * The changed entries indexed in memory by retrieval key (the keys stored at import), and under
 * each key by birth year: a person's candidates are the entries sharing at least one key with
 * the person's name, and of those only the entries that could reach the threshold by birth date
 * are read (born within a year of the person, or of no known birth date; nearBirthYears in
 * score.ts). So a person is scored against a handful of entries, not against the whole change,
 * however common their first name (docs/performance.md, "Screening at list sizes").
 */
export class ChangedEntryIndex {
  /** Every entry sharing the key, in entry order. */
  private readonly byKey = new Map<string, number[]>();
  /** The entries with no birth date sharing the key. */
  private readonly undated = new Map<string, number[]>();
  /** The entries with a birth date of that (whole) year sharing the key. */
  private readonly byYear = new Map<string, Map<number, number[]>>();
  /** Entry by entry, the query words (bits) whose own keys it holds, as the last `candidates` call found them. */
  private readonly keyCover: Int32Array;
  /** Entry by entry, the last lookup that listed it (one candidate once per lookup). */
  private readonly seen: Uint32Array;
  private lookup = 0;
  /** The change's distinct words, each entry's as indices into them, and the words filed under each form (filingsOf). */
  private readonly vocabulary: string[] = [];
  private readonly wordIds: Map<string, number>;
  private readonly entryWords: Int32Array[];
  private readonly filed = new Map<string, number[]>();
  /** Word by word, the query words (bits) it covers in the person being marked (`mark`), valid where its stamp is the mark's. */
  private readonly covering: Int32Array;
  private readonly stamp: Uint32Array;
  private marked = 0;
  /** The change's words covering a query word (coversWord, or its initial), by the query word: names repeat across people. */
  private readonly coverOf = new Map<string, number[]>();

  constructor(readonly entries: readonly ChangedEntry[]) {
    this.keyCover = new Int32Array(entries.length);
    this.seen = new Uint32Array(entries.length);
    const ids = new Map<string, number>();
    // Each entry's words: every name, alias and weak alias (as retrieval.ts's reach test reads them).
    this.entryWords = entries.map((e) =>
      Int32Array.from(new Set(e.normalizedNames.flatMap(variantTokens)), (w) => {
        let id = ids.get(w);
        if (id === undefined) {
          id = this.vocabulary.length;
          ids.set(w, id);
          this.vocabulary.push(w);
          // One-letter words cover only as an initial (retrieval.ts, covers), never through a form.
          if (w.length > 1) for (const f of filingsOf(w)) push(this.filed, f, id);
        }
        return id;
      }),
    );
    this.wordIds = ids;
    this.covering = new Int32Array(this.vocabulary.length);
    this.stamp = new Uint32Array(this.vocabulary.length);
    entries.forEach((e, i) => {
      const years = new Set(e.birthDates.map((d) => Number(d.slice(0, 4))).filter(Number.isSafeInteger));
      for (const k of new Set(e.nameKeys)) {
        push(this.byKey, k, i);
        if (e.birthDates.length === 0) push(this.undated, k, i);
        if (years.size === 0) continue;
        let byYear = this.byYear.get(k);
        if (!byYear) {
          byYear = new Map();
          this.byYear.set(k, byYear);
        }
        for (const y of years) push(byYear, y, i);
      }
    });
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * Marks, for `reach` (one person's, reachMasks), which of the change's words cover each query
   * word: a word one typing error away or of its shape, found through the forms the word is filed
   * under (filingsOf, as the screens' narrow read finds them in the key table), or its initial.
   * `reaches` then answers for entries as reachTest does, without comparing words.
   */
  mark(reach: Reach): void {
    if (++this.marked === 0xffffffff) {
      this.stamp.fill(0);
      this.marked = 1;
    }
    reach.words.forEach((w, bit) => {
      for (const x of this.coverWords(w)) {
        if (this.stamp[x] !== this.marked) {
          this.stamp[x] = this.marked;
          this.covering[x] = 0;
        }
        this.covering[x]! |= 1 << bit;
      }
    });
  }

  /**
   * Whether entry i covers a whole set of `reach`, the person's last `mark`ed and passed to the
   * `candidates` call that listed i: by its marked words, or by a word's own key it holds.
   */
  reaches(reach: Reach, i: number): boolean {
    let covered = this.keyCover[i]!;
    const words = this.entryWords[i]!;
    for (let j = 0; j < words.length; j++) {
      const x = words[j]!;
      if (this.stamp[x] === this.marked) covered |= this.covering[x]!;
    }
    for (const m of reach.sets) if ((covered & m) === m) return true;
    return false;
  }

  private coverWords(w: ReachWord): number[] {
    let out = this.coverOf.get(w.token);
    if (out) return out;
    const found = new Set<number>();
    for (const f of filingsOf(w.token)) for (const x of this.filed.get(f) ?? []) if (coversWord(w, this.vocabulary[x]!)) found.add(x);
    const initial = this.wordIds.get(w.token[0]!);
    if (initial !== undefined) found.add(initial);
    out = [...found];
    if (this.coverOf.size >= MAX_COVERS) this.coverOf.clear();
    this.coverOf.set(w.token, out);
    return out;
  }

  /**
   * The entries sharing one of `keys` (indices into `entries`, each once, in no set order); with
   * `years`, only those born in one of them or of no known birth date. With `reach` (the person's,
   * reachMasks), each entry listed also records which of the person's words it covers by holding
   * one of their own keys, for `reaches`.
   */
  candidates(keys: readonly string[], years?: readonly number[], reach?: Reach): number[] {
    if (++this.lookup === 0xffffffff) {
      this.seen.fill(0);
      this.lookup = 1;
    }
    const out: number[] = [];
    const take = (list: number[] | undefined, bits: number) => {
      if (!list) return;
      for (const i of list) {
        if (this.seen[i] === this.lookup) {
          this.keyCover[i]! |= bits;
          continue;
        }
        this.seen[i] = this.lookup;
        this.keyCover[i] = bits;
        out.push(i);
      }
    };
    for (const k of keys) {
      let bits = 0;
      if (reach) for (let b = 0; b < reach.words.length; b++) if (reach.words[b]!.own.includes(k)) bits |= 1 << b;
      if (!years) {
        take(this.byKey.get(k), bits);
        continue;
      }
      take(this.undated.get(k), bits);
      const byYear = this.byYear.get(k);
      if (byYear) for (const y of years) take(byYear.get(y), bits);
    }
    return out;
  }
}

/** Query words whose covering words are kept (names repeat across a run's people); past it the memo starts again. */
const MAX_COVERS = 100_000;

type Reach = NonNullable<ReturnType<typeof reachMasks>>;

function push<K>(map: Map<K, number[]>, key: K, i: number): void {
  const list = map.get(key);
  if (list) list.push(i);
  else map.set(key, [i]);
}

// Every organization's run of one list change reads the same change: built once per process.
let cached: { key: string; index: ChangedEntryIndex | null } | undefined;

/** Above this many changed entries the change is not held in memory (a first import of a large list). */
const MAX_IN_MEMORY = 50_000;

/**
 * The change's index, or null when it is larger than MAX_IN_MEMORY: the caller then retrieves
 * candidates per person from the version's key table instead, as a screen at approval does.
 */
export async function changedEntryIndex(
  db: DbOrTx,
  versionId: string,
  previousId: string | null,
  max = MAX_IN_MEMORY,
): Promise<ChangedEntryIndex | null> {
  const key = `${versionId}:${previousId ?? ""}:${max}`;
  if (cached && cached.key === key) return cached.index;
  const entries = await changedPersonEntries(db, versionId, previousId, max + 1);
  if (entries.length > max) {
    cached = { key, index: null };
    return null;
  }
  const index = new ChangedEntryIndex(entries);
  cached = { key, index };
  return index;
}

/** How many entries changed (for a change too large to index; counted in the database). */
export async function countChangedPersonEntries(db: DbOrTx, versionId: string, previousId: string | null): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n
    FROM screening_entries e
    LEFT JOIN screening_entries p ON p."listVersionId" = ${previousId}::uuid AND p."externalId" = e."externalId"
    WHERE e."listVersionId" = ${versionId}::uuid
      AND (p.id IS NULL OR p."normalizedNames" IS DISTINCT FROM e."normalizedNames" OR p."birthDates" IS DISTINCT FROM e."birthDates"
           OR p.countries IS DISTINCT FROM e.countries OR p.topics IS DISTINCT FROM e.topics)`;
  return row?.n ?? 0;
}
