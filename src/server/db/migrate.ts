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

/** An arbitrary constant; every instance takes the same lock so only one applies migrations. */
const MIGRATION_LOCK_ID = 72707369;

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

/** Applies pending migrations; returns the names it applied. */
export async function applyMigrations(db: SqlExecutor, migrations = readMigrations()): Promise<string[]> {
  await db.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
  try {
    await db.exec(MIGRATIONS_TABLE);
    const done = await appliedMigrationNames(db);
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      await db.exec("BEGIN");
      try {
        await db.exec(m.sql);
        await db.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await db.exec("COMMIT");
      } catch (err) {
        await db.exec("ROLLBACK");
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
    return applied;
  } finally {
    await db.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
  }
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
