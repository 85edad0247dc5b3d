import { sha256Hex } from "../../crypto/hash";
import { type Db, type DbOrTx, Prisma, type Tx } from "../../db/client";
import { isTransaction } from "../../db/tx";
import { logger } from "../../log";
import { syncKeyIndexes } from "./key-index";
import type { ListFormat, ParsedEntry, ParsedLabel } from "./list-types";
import { enqueueListChangeRuns } from "./monitoring-enqueue";
import { initialKey, nameTokens, normalizeName, retrievalKeys, weakAliasVariant } from "./normalize";
import { parseFtm } from "./parse-ftm";
import { parseLabels } from "./parse-labels";
import { parseOfac } from "./parse-ofac";
import { filingsOf, hasWordKey, WORD_KEY_PREFIX, wordKey } from "./retrieval";

export { ListFormatError } from "./list-types";

/** The list each format goes into unless the operator names another. */
export const DEFAULT_LIST: Record<ListFormat, string> = { ftm: "opensanctions", ofac: "ofac-sdn", labels: "account-labels" };

/** Rows per INSERT: large lists go in a few hundred statements instead of one per entry. */
export const CHUNK = 2_000;

/** `sha256` of the file's bytes when read from disk (else of the text's UTF-8). */
export type ListFile = { name: string; text: string; sha256?: string };
export type ImportOptions = {
  format: ListFormat;
  files: ListFile[];
  list?: string;
  importedBy: string;
  /** Import only when the list has no active version (sandbox fixtures: idempotent across instances). */
  onlyIfNone?: boolean;
  /** The organization that owns the list (its own upload, screened for it alone); absent = a global list. */
  orgId?: string | null;
};
export type ImportResult = {
  list: string;
  format: ListFormat;
  listVersionId: string;
  versionHash: string;
  fileHashes: string[];
  entryCount: number;
  skipped: number;
  /** True when nothing was written: the same files are already active, or onlyIfNone found a list. */
  unchanged: boolean;
};

type Prepared = { entries?: ParsedEntry[]; labels?: ParsedLabel[]; skipped: number };

/** Parses every file before anything touches the database, so a bad line changes nothing. */
function prepare(format: ListFormat, files: ListFile[]): Prepared {
  if (files.length === 0) throw new Error("no files to import");
  if (format === "ofac") return parseOfac(files);
  if (files.length !== 1) throw new Error(`--format ${format} takes exactly one file`);
  const [f] = files as [ListFile];
  if (format === "ftm") return parseFtm(f.text, f.name);
  return { labels: parseLabels(f.text, f.name).labels, skipped: 0 };
}

/**
 * An entry's stored keys: the retrieval keys of its words, "i:<letter>" for each initial and
 * "w:<word>" for each word of two letters or more (`words`: the words as scoring reads them,
 * every name, alias and weak alias). A query never asks for the last two; retrieval.ts reads them
 * to tell which entries could set an initial, a word one typing error away or a word of the same
 * consonant shape against a word of the query.
 */
function entryKeys(tokens: readonly string[], words: readonly string[]): string[] {
  const initials = [...new Set(tokens.filter((t) => t.length === 1))].map(initialKey);
  return [...retrievalKeys(tokens), ...initials, ...[...new Set(words.filter(hasWordKey))].map(wordKey)];
}

/** Normalised names and retrieval keys, computed once here rather than at every screen. */
export function entryRow(listVersionId: string, e: ParsedEntry) {
  const variants = [...new Set([e.name, ...e.aliases].map(normalizeName).filter(Boolean))];
  // Weak aliases go in marked (matched only exactly, see score.ts) unless a strong name already says the same.
  const weak = [...new Set((e.weakAliases ?? []).map(normalizeName).filter((n) => n && !variants.includes(n)))];
  return {
    listVersionId,
    externalId: e.externalId,
    schema: e.schema,
    name: e.name,
    aliases: e.aliases,
    normalizedNames: [...variants, ...weak.map(weakAliasVariant)],
    nameKeys: entryKeys(
      [...variants, ...weak].flatMap((v) => nameTokens(v)),
      [...variants, ...weak].flatMap((v) => v.split(" ")),
    ),
    birthDates: e.birthDates,
    countries: e.countries,
    topics: e.topics,
    programme: e.programme,
  };
}

/**
 * A version of at least this many key rows keeps them in a partition of its own of
 * screening_entry_keys, its primary key built once over the finished rows; a smaller one adds them
 * to the shared default partition (docs/screening.md, "Importing a large list").
 */
export const OWN_KEY_PARTITION_FROM = 50_000;

/** The table a version's key rows are written into during its import (its partition, or the rows' way to the default one). */
const stagingTable = (listVersionId: string) => `screening_entry_keys_${listVersionId.replace(/-/g, "")}`;

/**
 * One INSERT per chunk from a JSON array (jsonb_to_recordset turns JSON arrays into text[]): an
 * order of magnitude faster than row-by-row parameters for lists of tens of thousands of people.
 * The same statement writes the chunk's retrieval keys into the version's staging table (no index,
 * no foreign key: a key row costs its heap tuple only). An entry's keys are distinct
 * (retrievalKeys), so no key row is written twice.
 */
async function insertEntries(tx: Tx, staging: string, rows: ReturnType<typeof entryRow>[]) {
  if (rows.length === 0) return;
  await tx.$executeRaw`
    WITH inserted AS (
      INSERT INTO screening_entries (id, "listVersionId", "externalId", schema, name, aliases, "normalizedNames", "nameKeys", "birthDates", countries, topics, programme)
      SELECT gen_random_uuid(), "listVersionId", "externalId", schema, name, aliases, "normalizedNames", "nameKeys", "birthDates", countries, topics, programme
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
        "listVersionId" uuid, "externalId" text, schema text, name text, aliases text[], "normalizedNames" text[],
        "nameKeys" text[], "birthDates" text[], countries text[], topics text[], programme text)
      RETURNING id, "listVersionId", "nameKeys")
    INSERT INTO ${Prisma.raw(`"${staging}"`)} ("listVersionId", key, "entryId")
    SELECT "listVersionId", unnest("nameKeys"), id FROM inserted`;
}

/**
 * Writes chunks of entries while the caller reads and normalises the next one: at most one
 * INSERT in flight on the transaction, so a large list imports at the pace of the slower of the
 * two rather than of both added up. A failed INSERT throws at the next write or at `flush`.
 *
 * Key rows go first into a table of the version's own, created by `open` without index or foreign
 * key: eight million of them inserted one by one into the shared primary key (and each checked
 * against its version) cost most of a million-entry import. `finish` then either builds that
 * table's primary key in one sorted pass and attaches it as the version's partition (large
 * versions), or moves its rows into the default partition and drops it (small ones, so that the
 * partitions stay few). Everything happens in the import's transaction: a failed import leaves no
 * table behind.
 */
export class EntryWriter {
  private pending: Promise<void> = Promise.resolve();
  /** Entries per key, written with `writeCounts` (a million entries hold about 100,000 distinct keys). */
  private readonly counts = new Map<string, number>();
  private keyRows = 0;
  private readonly staging: string;
  private constructor(
    private readonly tx: Tx,
    private readonly listVersionId: string,
  ) {
    this.staging = stagingTable(listVersionId);
  }

  /** A writer for one version, its staging table created. */
  static async open(tx: Tx, listVersionId: string): Promise<EntryWriter> {
    const w = new EntryWriter(tx, listVersionId);
    await tx.$executeRawUnsafe(`CREATE TABLE "${w.staging}" (LIKE screening_entry_keys INCLUDING DEFAULTS)`);
    return w;
  }

  async write(rows: ReturnType<typeof entryRow>[]): Promise<void> {
    for (const r of rows) {
      for (const k of r.nameKeys) this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
      this.keyRows += r.nameKeys.length;
    }
    await this.pending;
    this.pending = insertEntries(this.tx, this.staging, rows);
    // Handled at the next write or flush; without this a failure while parsing would go unhandled.
    this.pending.catch(() => undefined);
  }

  /** Waits for the last INSERT (throwing its error). */
  flush(): Promise<void> {
    return this.pending;
  }

  /**
   * After `flush`: the version's key counts (screening_key_counts), 20,000 keys per statement, and
   * its words under the forms retrieval looks them up by (screening_word_deletions, from the "w:" keys).
   */
  async writeCounts(): Promise<void> {
    const listVersionId = this.listVersionId;
    // In key order (the columns compare bytewise), so each statement fills the primary key page after page.
    const byKey = <T extends [string, unknown]>(a: T, b: T) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    const all = [...this.counts].sort(byKey);
    for (let i = 0; i < all.length; i += 20_000) {
      const part = all.slice(i, i + 20_000);
      await this.tx.$executeRaw`
        INSERT INTO screening_key_counts ("listVersionId", key, entries)
        SELECT ${listVersionId}::uuid, k, n FROM unnest(${part.map((c) => c[0])}::text[], ${part.map((c) => c[1])}::int[]) AS x(k, n)`;
    }
    const pairs: [string, string][] = [];
    for (const k of this.counts.keys()) {
      if (!k.startsWith(WORD_KEY_PREFIX)) continue;
      const word = k.slice(WORD_KEY_PREFIX.length);
      for (const d of filingsOf(word)) pairs.push([d, word]);
    }
    pairs.sort((a, b) => byKey(a, b) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    for (let i = 0; i < pairs.length; i += 50_000) {
      const part = pairs.slice(i, i + 50_000);
      await this.tx.$executeRaw`
        INSERT INTO screening_word_deletions ("listVersionId", deletion, word)
        SELECT ${listVersionId}::uuid, d, w FROM unnest(${part.map((p) => p[0])}::text[], ${part.map((p) => p[1])}::text[]) AS x(d, w)`;
    }
  }

  /**
   * After `flush`: makes the key rows screening_entry_keys rows. Call it last before activation:
   * attaching a partition holds the default partition's lock until the commit.
   */
  async finish(): Promise<void> {
    const t = `"${this.staging}"`;
    if (this.keyRows < OWN_KEY_PARTITION_FROM) {
      // In key order: the shared index is then written page after page instead of all over.
      await this.tx.$executeRawUnsafe(`INSERT INTO screening_entry_keys SELECT * FROM ${t} ORDER BY key, "entryId"`);
      await this.discard();
      return;
    }
    // One sorted build of the primary key (the attach adopts it as its partition of the parent's
    // index), then the attach: it checks the rows' version and foreign key with one scan each.
    await this.tx.$executeRawUnsafe("SET LOCAL maintenance_work_mem = '256MB'");
    await this.tx.$executeRawUnsafe(`ALTER TABLE ${t} ADD PRIMARY KEY ("listVersionId", key, "entryId")`);
    await this.tx.$executeRawUnsafe(`ALTER TABLE screening_entry_keys ATTACH PARTITION ${t} FOR VALUES IN ('${this.listVersionId}')`);
  }

  /** Drops the staging table (a version that is not kept, or whose rows moved to the default partition). */
  async discard(): Promise<void> {
    await this.tx.$executeRawUnsafe(`DROP TABLE "${this.staging}"`);
  }

  /** Waits for the INSERT in flight whatever its outcome, so the transaction ends with nothing running on it. */
  settle(): Promise<void> {
    return this.pending.catch(() => undefined);
  }
}

/** Runs `fn` in the caller's transaction, or in a new one on a full client. */
export { isTransaction };

export function inTransaction<T>(db: DbOrTx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return isTransaction(db) ? fn(db as Tx) : (db as Db).$transaction(fn, { timeout: 10 * 60_000, maxWait: 60_000 });
}

/**
 * Imports one version of a list and makes it the active one, in a single transaction: screening
 * sees the old version until the commit and the whole new one after it, never half a list.
 * Imports of the same list are serialised by an advisory lock, so two at once cannot both flip.
 * A file that does not parse throws ListFormatError (file and line) before any write.
 */
export async function importList(db: DbOrTx, opts: ImportOptions): Promise<ImportResult> {
  return refreshedAfter(db, importListIn(db, opts));
}

/**
 * Refreshes the planner's statistics of the screening tables once an import has committed (when
 * it ran in a transaction of its own; a caller's transaction calls refreshScreeningStatistics
 * after its commit). Before autovacuum got round to them, the retrieval statements were planned
 * as if a version held a few rows: a screen against a fresh 3,000-entry list read every row of its
 * version (30 ms instead of 7; docs/screening.md § Retrieval).
 */
export async function refreshedAfter(db: DbOrTx, importing: Promise<ImportResult>): Promise<ImportResult> {
  const res = await importing;
  if (!res.unchanged && !isTransaction(db)) await refreshScreeningStatistics(db as Db);
  return res;
}

/**
 * ANALYZE of the tables retrieval reads (sampled: well under a second at a million entries), then
 * the key arrays' indexes brought in line with the active versions (key-index.ts); a failure is
 * logged, never the import's. `indexesInBackground`: returns once the statistics are taken and
 * leaves the indexes building (an upload answers its request then: a build waits for every
 * transaction older than it, another list's import of minutes included).
 */
export async function refreshScreeningStatistics(db: Db, opts: { indexesInBackground?: boolean } = {}): Promise<void> {
  try {
    await db.$executeRawUnsafe("ANALYZE screening_entries, screening_entry_keys, screening_key_counts, screening_word_deletions");
  } catch (err) {
    logger().warn({ err: (err as Error).message }, "screening statistics not refreshed after an import; autovacuum will");
  }
  const indexing = syncKeyIndexes(); // never rejects: a failure is logged
  if (!opts.indexesInBackground) await indexing;
}

async function importListIn(db: DbOrTx, opts: ImportOptions): Promise<ImportResult> {
  const list = opts.list ?? DEFAULT_LIST[opts.format];
  const parsed = prepare(opts.format, opts.files);
  const fileHashes = opts.files.map((f) => f.sha256 ?? sha256Hex(f.text));
  // OFAC: the parser's revision is part of the version, so files imported before it read weak aliases import again.
  const versionHash = sha256Hex(`${opts.format === "ofac" ? "ofac\nweak-aliases" : opts.format}\n${fileHashes.join("\n")}`);
  const count = parsed.entries?.length ?? parsed.labels?.length ?? 0;
  const base = { list, format: opts.format, versionHash, fileHashes, entryCount: count, skipped: parsed.skipped };
  const orgId = opts.orgId ?? null;
  return inTransaction(db, async (tx) => {
    const active = await lockList(tx, list, orgId);
    if (active && (opts.onlyIfNone || active.versionHash === versionHash)) {
      return {
        ...base,
        listVersionId: active.id,
        versionHash: active.versionHash,
        fileHashes: active.fileHashes,
        entryCount: active.entryCount,
        unchanged: true,
      };
    }
    const version = await tx.screeningListVersion.create({
      data: { list, format: opts.format, fileHashes, versionHash, entryCount: count, importedBy: opts.importedBy, orgId },
    });
    const entries = parsed.entries ?? [];
    const writer = await EntryWriter.open(tx, version.id);
    try {
      for (let i = 0; i < entries.length; i += CHUNK) await writer.write(entries.slice(i, i + CHUNK).map((e) => entryRow(version.id, e)));
      await writer.flush();
    } finally {
      await writer.settle();
    }
    await writer.writeCounts();
    const labels = parsed.labels?.map((l) => ({ listVersionId: version.id, ...l })) ?? [];
    for (let i = 0; i < labels.length; i += CHUNK) await tx.screeningAccountLabel.createMany({ data: labels.slice(i, i + CHUNK) });
    await writer.finish();
    await activateVersion(tx, list, version.id, orgId);
    return { ...base, listVersionId: version.id, unchanged: false };
  });
}

/**
 * Serialises imports of one list (until the transaction ends) and returns its active version. A
 * list is its name and its owner: an organization's own list never shares versions with a global
 * list or another organization's list of the same name.
 */
export async function lockList(tx: Tx, list: string, orgId: string | null = null) {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`screening-list:${orgId ?? "global"}:${list}`}))::text AS locked`;
  return tx.screeningListVersion.findFirst({ where: { list, orgId, active: true } });
}

/**
 * Makes the version (its entries and their keys written) the one active version of its list, and queues
 * the re-screen of everyone already approved against what changed (docs/decisions.md,
 * "Screening"), in the same transaction.
 */
export async function activateVersion(tx: Tx, list: string, versionId: string, orgId: string | null = null) {
  const previous = await tx.screeningListVersion.findFirst({ where: { list, orgId, active: true }, select: { id: true } });
  // Off first, then on: the partial unique index allows one active version per list and owner at every step.
  await tx.screeningListVersion.updateMany({ where: { list, orgId, active: true }, data: { active: false } });
  await tx.screeningListVersion.update({ where: { id: versionId }, data: { active: true, activatedAt: new Date() } });
  await enqueueListChangeRuns(tx, { list, versionId, previousId: previous?.id ?? null });
}
