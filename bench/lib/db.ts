import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyMigrations } from "../../src/server/db/migrate";
import { createDatabase, dropDatabase, findPostgres } from "../../src/server/testing/postgres";

export type BenchDb = { url: string; dataDir: string; admin: pg.Client; drop(): Promise<void> };

/** A throwaway database on the machine's PostgreSQL (as the tests find one), migrated, dropped at the end. */
export async function throwawayDatabase(): Promise<BenchDb> {
  const server = await findPostgres();
  const name = `bi_bench_${process.pid}_${Date.now().toString(36)}`;
  const url = await createDatabase(server.adminUrl, name);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await applyMigrations({
    query: async (text, params) => (await admin.query(text, params as unknown[])).rows,
    exec: async (text) => void (await admin.query(text)),
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-bench-"));
  return {
    url,
    dataDir,
    admin,
    async drop() {
      await admin.end().catch(() => undefined);
      await dropDatabase(server.adminUrl, name);
      fs.rmSync(dataDir, { recursive: true, force: true });
      await server.stop();
    },
  };
}

/**
 * Adds `n` accounts to an organization in bulk (one statement per 50,000), so a route can be
 * measured with 10× and 100× the data around it.
 */
export async function seedAccounts(admin: pg.Client, orgId: string, n: number, offset = 0): Promise<void> {
  for (let done = 0; done < n; done += 50_000) {
    const k = Math.min(50_000, n - done);
    await admin.query(
      `INSERT INTO accounts (id, "orgId", chain, name, did, "ownerPublicKey", "activePublicKey", "updatedAt")
       SELECT gen_random_uuid(), $1::uuid, 'sandbox', n, 'did:antelope:sandbox:' || n, 'PUB_K1_seed', 'PUB_K1_seed', now()
       FROM (SELECT 'zz' || translate(($2::int + i)::text, '0123456789', 'abcdefghij') AS n FROM generate_series(1, $3::int) AS i) AS names`,
      [orgId, offset + done, k],
    );
  }
  await admin.query("ANALYZE accounts");
}
