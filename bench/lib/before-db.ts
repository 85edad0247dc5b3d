import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { createDatabase, dropDatabase, findPostgres } from "../../src/server/testing/postgres";

const run = promisify(execFile);

/**
 * The --before checkout's own database on the same PostgreSQL server: the tables as that code's
 * migrations made them, since the two versions' schemas may differ (the audit entries' columns
 * are generated from their hashed bytes now, which code from before cannot insert into). Its
 * organizations are made by that checkout's `org:create`, which migrates the database first.
 */
export type BeforeDb = {
  url: string;
  database: string;
  admin: pg.Client;
  /** An organization made by the --before checkout's own `org:create`. */
  provision(input: { name: string; email: string; plan: string }): Promise<{ organizationId: string; apiKey: string }>;
  drop(): Promise<void>;
};

export async function beforeDatabase(dir: string, dataDir: string): Promise<BeforeDb> {
  const server = await findPostgres();
  const database = `bi_bench_before_${process.pid}_${Date.now().toString(36)}`;
  const url = await createDatabase(server.adminUrl, database);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  return {
    url,
    database,
    admin,
    async provision(input) {
      const { stdout } = await run(
        process.execPath,
        ["--import", "tsx", path.join("scripts", "org-create.ts"), "--name", input.name, "--email", input.email, "--plan", input.plan],
        { cwd: dir, env: { ...process.env, DATABASE_URL: url, BI_DATA_DIR: dataDir, LOG_LEVEL: "warn" }, maxBuffer: 4 * 2 ** 20 },
      );
      const line = stdout.trim().split("\n").pop() ?? "";
      const out = JSON.parse(line) as { organizationId?: string; apiKey?: string };
      if (!out.organizationId || !out.apiKey)
        throw new Error(`bench: the --before checkout's org:create printed no organization: ${line.slice(0, 200)}`);
      return { organizationId: out.organizationId, apiKey: out.apiKey };
    },
    async drop() {
      await admin.end().catch(() => undefined);
      await dropDatabase(server.adminUrl, database);
      await server.stop();
    },
  };
}
