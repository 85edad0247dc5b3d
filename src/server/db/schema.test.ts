import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase, dropDatabase } from "@/server/testing/postgres";
import { applyMigrations } from "./migrate";

// The schema (prisma/schema/, one file per domain) and prisma/migrations describe one database:
// on a database the migrations built, as the service applies them, `npm run migration:new` has
// nothing to write. The tool drafts into a copy of the migrations, never into prisma/migrations.
const run = promisify(execFile);
const dbName = `bi_schema_${process.pid}_${Date.now().toString(36)}`;
const temp: string[] = [];
let dbUrl: string;

const tempCopy = (from: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-schema-"));
  temp.push(dir);
  fs.cpSync(from, dir, { recursive: true });
  return dir;
};

/** Drafts a migration named schema_check (`migration:new --create-only`); its SQL. */
async function draft(opts: { schema?: string } = {}) {
  const migrations = tempCopy("prisma/migrations");
  const args = ["scripts/prisma-offline-migrate.mjs", "dev", "--name", "schema_check", "--create-only", "--migrations", migrations];
  if (opts.schema) args.push("--schema", opts.schema);
  const { stdout } = await run(process.execPath, args, { env: { ...process.env, DATABASE_URL: dbUrl } });
  expect(stdout).toMatch(/created: \d+_schema_check/);
  const [made] = fs.readdirSync(migrations).filter((d) => d.endsWith("_schema_check"));
  return fs.readFileSync(path.join(migrations, made!, "migration.sql"), "utf8").trim();
}

beforeAll(async () => {
  dbUrl = await createDatabase(inject("adminDatabaseUrl"), dbName);
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  await applyMigrations({ query: async (t, p) => (await c.query(t, p as unknown[])).rows, exec: async (t) => void (await c.query(t)) });
  await c.end();
});

afterAll(async () => {
  for (const d of temp) fs.rmSync(d, { recursive: true, force: true });
  await dropDatabase(inject("adminDatabaseUrl"), dbName).catch(() => undefined);
});

// Each draft starts Prisma's migration engine in a process of its own: seconds alone, a minute or
// more while the other worker loads the same two cores.
const DRAFT_BUDGET_MS = 180_000;

describe("the Prisma schema and the migrations", () => {
  it(
    "agree: a migration drafted on top of the migrations is empty",
    async () => {
      expect(await draft()).toBe("-- This is an empty migration.");
    },
    DRAFT_BUDGET_MS,
  );

  it(
    "and the check bites: a field added to one domain's file drafts its column",
    async () => {
      const schema = tempCopy("prisma/schema");
      const audit = path.join(schema, "audit.prisma");
      fs.writeFileSync(audit, fs.readFileSync(audit, "utf8").replace("model AuditHead {\n", "model AuditHead {\n  probe String?\n"));
      expect(await draft({ schema })).toContain('ALTER TABLE "audit_heads" ADD COLUMN     "probe" TEXT;');
    },
    DRAFT_BUDGET_MS,
  );
});

describe("foreign keys", () => {
  // Deleting a parent row makes PostgreSQL find its children by the key's columns: without an index
  // leading with them, each deleted row reads the whole child table (a failed create's pending
  // account read every binding; an organization's deletion, every case event once per case).
  it("each has an index leading with its columns (a partial index does not serve the delete)", async () => {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    try {
      const { rows } = await c.query<{ fk: string }>(`
        SELECT format('%s(%s) -> %s', con.conrelid::regclass, string_agg(a.attname, ', ' ORDER BY k.n), con.confrelid::regclass) AS fk
        FROM pg_constraint con
        CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY k(attnum, n)
        JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
        WHERE con.contype = 'f' AND con.conrelid::regclass::text NOT LIKE 'screening\\_entry\\_keys\\_%'
          AND NOT EXISTS (
            SELECT 1 FROM pg_index i
            WHERE i.indrelid = con.conrelid AND i.indpred IS NULL
              AND (i.indkey::int2[])[0:cardinality(con.conkey) - 1] @> con.conkey
              AND (i.indkey::int2[])[0:cardinality(con.conkey) - 1] <@ con.conkey)
        GROUP BY con.oid, con.conrelid, con.confrelid ORDER BY 1`);
      expect(rows.map((r) => r.fk)).toEqual([]);
    } finally {
      await c.end();
    }
  });
});
