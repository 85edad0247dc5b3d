import pg from "pg";
import { throwawayDatabase as testingDatabase } from "../../src/server/testing/throwaway-db";

export type BenchDb = { url: string; dataDir: string; admin: pg.Client; drop(): Promise<void> };

/** The tests' throwaway database, named for the bench, with a connection open for seeding. */
export async function throwawayDatabase(): Promise<BenchDb> {
  const db = await testingDatabase({ database: "bi_bench", dataDir: "bi-bench-" });
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  return {
    url: db.url,
    dataDir: db.dataDir,
    admin,
    async drop() {
      await admin.end().catch(() => undefined);
      await db.drop();
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

/**
 * The database server's settings that the audit verification's figures depend on: a session
 * new to a server without huge pages maps its buffer pool page by page as it reads through it
 * (docs/performance.md, "Where a first verification's time goes").
 */
export async function serverSettings(admin: pg.Client): Promise<Record<string, string>> {
  const { rows } = await admin.query<{ name: string; value: string }>(
    `SELECT name, current_setting(name) AS value FROM pg_settings
     WHERE name IN ('server_version', 'shared_buffers', 'huge_pages', 'huge_pages_status') ORDER BY name`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}
