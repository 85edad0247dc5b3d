import type { DbOrTx } from "../../db/client";
import { variantTokens } from "./normalize";

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
  /** Each entry's words (every name, alias and weak alias), for reachTest (retrieval.ts). */
  readonly words: string[][];
  /** Each entry's stored keys, for reachTest. */
  readonly keys: Set<string>[];
  /** Entry by entry, the last lookup that listed it (one candidate once per lookup). */
  private readonly seen: Uint32Array;
  private lookup = 0;

  constructor(readonly entries: readonly ChangedEntry[]) {
    this.words = entries.map((e) => [...new Set(e.normalizedNames.flatMap(variantTokens))]);
    this.keys = entries.map((e) => new Set(e.nameKeys));
    this.seen = new Uint32Array(entries.length);
    entries.forEach((e, i) => {
      const years = new Set(e.birthDates.map((d) => Number(d.slice(0, 4))).filter(Number.isSafeInteger));
      for (const k of this.keys[i]!) {
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
   * The entries sharing one of `keys` (indices into `entries`, each once, in no set order); with
   * `years`, only those born in one of them or of no known birth date.
   */
  candidates(keys: readonly string[], years?: readonly number[]): number[] {
    if (++this.lookup === 0xffffffff) {
      this.seen.fill(0);
      this.lookup = 1;
    }
    const out: number[] = [];
    const take = (list: number[] | undefined) => {
      if (!list) return;
      for (const i of list) {
        if (this.seen[i] === this.lookup) continue;
        this.seen[i] = this.lookup;
        out.push(i);
      }
    };
    for (const k of keys) {
      if (!years) {
        take(this.byKey.get(k));
        continue;
      }
      take(this.undated.get(k));
      const byYear = this.byYear.get(k);
      if (byYear) for (const y of years) take(byYear.get(y));
    }
    return out;
  }
}

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
