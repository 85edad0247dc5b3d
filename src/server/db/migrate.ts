import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Applies prisma/migrations/<name>/migration.sql in order, each once, recording them in
 * `_prisma_migrations` exactly as `prisma migrate deploy` does (the native Prisma engine cannot be
 * fetched on these machines; see docs/decisions.md). The same code serves PostgreSQL and PGlite.
 */
export type SqlExecutor = {
  /** Runs one parameterised statement and returns its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements. */
  exec(sql: string): Promise<void>;
};

export type Migration = { name: string; sql: string; checksum: string };

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** An arbitrary constant; every migrator takes the same lock so only one applies migrations at a time. */
export const MIGRATION_LOCK_ID = 72707369;

/** How long a migrator waits for another one's lock before it gives up (BI_MIGRATION_LOCK_WAIT_MS). */
export const DEFAULT_MIGRATION_LOCK_WAIT_MS = 300_000;

export type MigrateOptions = { lockWaitMs?: number };

export function migrationsDir(): string {
  return path.resolve(process.cwd(), "prisma", "migrations");
}

export function readMigrations(dir = migrationsDir()): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export async function appliedMigrationNames(db: SqlExecutor): Promise<Set<string>> {
  const rows = await db.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  return new Set(rows.map((r) => r.migration_name));
}

/**
 * Applies pending migrations; returns the names it applied. Each step is one transaction that
 * first takes the migration lock with `pg_advisory_xact_lock`, so the lock ends with the
 * transaction that took it: through a transaction pooler (PgBouncer in transaction mode) a
 * session-level lock and its unlock could land on different server connections and leave the lock
 * held by an idle pooled connection, on which every later migrator waited forever. A migrator
 * waits at most `lockWaitMs` for another's lock and then fails naming who holds it.
 */
export async function applyMigrations(db: SqlExecutor, migrations = readMigrations(), opts: MigrateOptions = {}): Promise<string[]> {
  const lockWaitMs = opts.lockWaitMs ?? DEFAULT_MIGRATION_LOCK_WAIT_MS;
  await underMigrationLock(db, lockWaitMs, () => db.exec(MIGRATIONS_TABLE));
  const applied: string[] = [];
  for (const m of migrations) {
    // Checked again under the lock: another migrator may have applied it since.
    const done = await underMigrationLock(db, lockWaitMs, async () => {
      if ((await appliedMigrationNames(db)).has(m.name)) return true;
      try {
        await db.exec(m.sql);
      } catch (err) {
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
      await db.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
         VALUES ($1, $2, now(), $3, 1)`,
        [randomUUID(), m.checksum, m.name],
      );
      return false;
    });
    if (!done) applied.push(m.name);
  }
  return applied;
}

/** PostgreSQL's "lock_not_available": lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = "55P03";

/**
 * Runs `fn` in a transaction that holds the migration lock; the lock is waited for at most
 * `lockWaitMs` (lock_timeout, for this wait only: the migration's own statements keep the
 * session's setting).
 */
async function underMigrationLock<T>(db: SqlExecutor, lockWaitMs: number, fn: () => Promise<T>): Promise<T> {
  await db.exec("BEGIN");
  try {
    const [saved] = await db.query<{ previous: string }>(
      "SELECT current_setting('lock_timeout') AS previous, set_config('lock_timeout', $1, true)",
      [`${Math.max(1, lockWaitMs)}ms`],
    );
    try {
      await db.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      await db.exec("ROLLBACK");
      throw new Error(await lockWaitMessage(db, lockWaitMs));
    }
    await db.query("SELECT set_config('lock_timeout', $1, true)", [saved!.previous]);
    const result = await fn();
    await db.exec("COMMIT");
    return result;
  } catch (err) {
    await db.exec("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/** What to check when the lock stayed taken: who holds it (pg_locks), and what to do about it. */
async function lockWaitMessage(db: SqlExecutor, lockWaitMs: number): Promise<string> {
  let holders = "another session";
  try {
    const rows = await db.query<{ pid: number; application_name: string; state: string; since: string }>(
      `SELECT l.pid, coalesce(a.application_name, '') AS application_name, coalesce(a.state, '') AS state,
              coalesce(to_char(a.state_change, 'YYYY-MM-DD"T"HH24:MI:SS'), '') AS since
       FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND l.granted`,
      [MIGRATION_LOCK_ID],
    );
    if (rows.length)
      holders = rows
        .map(
          (r) =>
            `PostgreSQL backend ${r.pid}${r.application_name ? ` (${r.application_name})` : ""}${r.state ? `, ${r.state} since ${r.since}` : ""}`,
        )
        .join("; ");
  } catch {
    // the catalog is not readable here: the advice below still holds
  }
  return (
    `Migrations gave up after waiting ${lockWaitMs} ms for the migration lock (advisory lock ${MIGRATION_LOCK_ID}), held by ${holders}. ` +
    "If another migrator is still running, let it finish and start again (or raise BI_MIGRATION_LOCK_WAIT_MS). " +
    "If none is, that session holds the lock by mistake, e.g. an older release's migrator whose unlock went through PgBouncer in transaction mode: " +
    "end it with SELECT pg_terminate_backend(<pid>), and set DATABASE_MIGRATION_URL to PostgreSQL itself, not the pooler " +
    '(docs/operations.md, "PgBouncer").'
  );
}

/** True when every migration file has been applied. */
export async function migrationsUpToDate(db: SqlExecutor): Promise<boolean> {
  const names = readMigrations().map((m) => m.name);
  try {
    const done = await appliedMigrationNames(db);
    return names.every((n) => done.has(n));
  } catch {
    return false;
  }
}
