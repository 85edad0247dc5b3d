import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyMigrations } from "../db/migrate";
import { createDatabase, dropDatabase, findPostgres } from "./postgres";

export type ThrowawayDb = { url: string; adminUrl: string; dataDir: string; drop(): Promise<void> };

/**
 * A uniquely named database on the PostgreSQL findPostgres finds, migrated, with a temporary
 * data directory; drop() removes both and stops a cluster started for it. The prefixes say who
 * made them, so a leftover after a crash can be traced.
 */
export async function throwawayDatabase(prefix: { database: string; dataDir: string }): Promise<ThrowawayDb> {
  const server = await findPostgres();
  const name = `${prefix.database}_${process.pid}_${Date.now().toString(36)}`;
  const url = await createDatabase(server.adminUrl, name);
  await migrate(url);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix.dataDir));
  return {
    url,
    adminUrl: server.adminUrl,
    dataDir,
    async drop() {
      await dropDatabase(server.adminUrl, name);
      fs.rmSync(dataDir, { recursive: true, force: true });
      await server.stop();
    },
  };
}

async function migrate(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await applyMigrations({
      query: async (text, params) => (await client.query(text, params as unknown[])).rows,
      exec: async (text) => void (await client.query(text)),
    });
  } finally {
    await client.end();
  }
}
