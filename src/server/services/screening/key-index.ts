import { withPgSession } from "../../db/client";
import { logger } from "../../log";

// A GIN index of the key arrays of each large active version (docs/screening.md, "The key arrays'
// index"). A narrow read of such a version asks PostgreSQL for the entries whose keys meet every
// word's cover keys of some minimal set; the index answers that by merging posting lists, where
// the key table read whole key ranges of common words and intersected them by hashing.
//
// One index per version, partial on the version: an index over every row would hand back the
// entries of every version ever imported (versions are kept for replays and diffs) and leave the
// version to a filter after each row is read. Indexes exist only for active versions: each is
// built after the import that activated its version commits (CONCURRENTLY: screens and imports go
// on meanwhile) and dropped once another version replaces it, so the planner weighs a few.

/** The name of a version's index: this and its id without dashes. */
export const KEY_INDEX_PREFIX = "screening_entries_gin_";
export const keyIndexName = (versionId: string): string => `${KEY_INDEX_PREFIX}${versionId.replace(/-/g, "")}`;

/** The statement that builds a version's index (outside a transaction). */
export const createKeyIndexSql = (versionId: string): string => {
  if (!VERSION_ID.test(versionId)) throw new Error("not a list version id");
  return `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${keyIndexName(versionId)}" ON screening_entries USING gin ("nameKeys") WHERE "listVersionId" = '${versionId}'::uuid`;
};

const VERSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Brings the indexes in line with the active versions: every active version with a key partition
 * of its own (a large version, `OWN_KEY_PARTITION_FROM` in import.ts) gets a valid index, one left
 * invalid by an interrupted build is built again, and the indexes of versions no longer active are
 * dropped. Idempotent, run after every import commits; until a version's index is valid, its
 * screens read the key table as before. On the embedded database nothing is done (its lists are
 * small). A failure is logged, never the import's.
 */
export function syncKeyIndexes(): Promise<void> {
  // One at a time in a process (an import's and the job's): two builds on one table wait for each other.
  syncing = syncing.then(syncOnce);
  return syncing;
}

let syncing: Promise<void> = Promise.resolve();

async function syncOnce(): Promise<void> {
  try {
    await withPgSession(async (client) => {
      const { rows: wanted } = await client.query<{ id: string }>(
        `SELECT id::text FROM screening_list_versions
         WHERE active AND to_regclass(format('%I', 'screening_entry_keys_' || replace(id::text, '-', ''))) IS NOT NULL`,
      );
      // An index another session is building is invalid until it is done: left to that session.
      const { rows: present } = await client.query<{ name: string; valid: boolean; building: boolean }>(
        `SELECT c.relname AS name, i.indisvalid AS valid,
                EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = i.indexrelid) AS building
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = 'screening_entries'::regclass AND starts_with(c.relname, $1)`,
        [KEY_INDEX_PREFIX],
      );
      const want = new Map(wanted.filter((v) => VERSION_ID.test(v.id)).map((v) => [keyIndexName(v.id), v.id]));
      for (const p of present) {
        if (want.has(p.name) && (p.valid || p.building)) want.delete(p.name);
        else if (!p.building) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${p.name}"`);
      }
      for (const id of want.values()) await client.query(createKeyIndexSql(id));
    });
  } catch (err) {
    logger().warn(
      { err: (err as Error).message },
      "screening key indexes not brought in line; the next import or the ten-minute job will try again",
    );
  }
}
