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
 * The changed entries indexed in memory by retrieval key (the keys stored at import): a person's
 * candidates are the entries sharing at least one key with the person's name, so a batch of
 * people is scored against a handful of entries each, not against the whole change.
 */
export class ChangedEntryIndex {
  private readonly byKey = new Map<string, number[]>();
  /** Each entry's words (every name, alias and weak alias) and keys, for reachTest (retrieval.ts). */
  readonly shapes = new Map<ChangedEntry, { words: string[]; keys: Set<string> }>();

  constructor(readonly entries: readonly ChangedEntry[]) {
    entries.forEach((e, i) => {
      this.shapes.set(e, { words: [...new Set(e.normalizedNames.flatMap(variantTokens))], keys: new Set(e.nameKeys) });
      for (const k of e.nameKeys) {
        const list = this.byKey.get(k);
        if (list) list.push(i);
        else this.byKey.set(k, [i]);
      }
    });
  }

  get size(): number {
    return this.entries.length;
  }

  candidates(keys: readonly string[]): ChangedEntry[] {
    const seen = new Set<number>();
    for (const k of keys) for (const i of this.byKey.get(k) ?? []) seen.add(i);
    return [...seen].sort((a, b) => a - b).map((i) => this.entries[i]!);
  }
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
