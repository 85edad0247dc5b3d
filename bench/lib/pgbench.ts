import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type pg from "pg";

const run = promisify(execFile);

export type PgbenchResult = {
  clients: number;
  tps: number;
  transactions: number;
  latencyMs: number;
  failed: number;
};

/**
 * The pgbench script of what a free create must persist: the account row, its `account.created`
 * outbox event and its `account.created` audit entry, three INSERTs in one transaction into the
 * real tables (same columns, indexes and constraints), with the values of a row that free create
 * wrote in this run copied as literals (same widths). Only what must be unique changes: new ids,
 * the account's name and did, the entry's seq (from a sequence of the bench's own), and the rows
 * belong to an organization of their own (`orgId`), so no real chain is touched. Timestamps are now().
 * String literals are E'' strings with ':' written \x3a, since pgbench would read ":word" as a variable.
 */
export async function pgbenchScript(
  admin: pg.Client,
  freeOrgId: string,
  orgId: string,
  dir: string,
): Promise<{ file: string; sql: string; bytes: number }> {
  const account = await one(
    admin,
    `SELECT row_to_json(a)::text AS j FROM accounts a WHERE "orgId" = $1 AND lifecycle <> 'pending' AND name NOT LIKE 'zz%'
      ORDER BY "createdAt" DESC LIMIT 1`,
    [freeOrgId],
  );
  const did = String(account.did);
  const event = await one(
    admin,
    `SELECT row_to_json(e)::text AS j FROM outbox_events e WHERE "orgId" = $1 AND event = 'account.created' AND payload->>'accountDid' = $2 LIMIT 1`,
    [freeOrgId, did],
  );
  const entry = await one(
    admin,
    `SELECT row_to_json(e)::text AS j FROM audit_entries e WHERE "orgId" = $1 AND action = 'account.created' AND subject = $2 LIMIT 1`,
    [freeOrgId, did],
  );
  await admin.query("CREATE SEQUENCE IF NOT EXISTS bench_pgbench_seq");
  const now = "now()";
  const sql = [
    "BEGIN;",
    insert("accounts", account, {
      id: "gen_random_uuid()",
      orgId: lit(orgId),
      name: `${lit("pgb")} || nextval('bench_pgbench_seq')`,
      did: `${lit("did:antelope:pgbench:")} || gen_random_uuid()`,
      createdAt: now,
      updatedAt: now,
    }),
    insert("outbox_events", event, { id: "gen_random_uuid()", orgId: lit(orgId), createdAt: now }),
    auditInsert(entry, freeOrgId, orgId),
    "END;",
  ].join("\n");
  const file = path.join(dir, "pgbench-free-create.sql");
  fs.writeFileSync(file, `${sql}\n`);
  return { file, sql, bytes: Buffer.byteLength(sql) };
}

/** `pgbench` with the script at `clients` clients for `seconds` (prepared statements, 2 threads). */
export async function pgbench(url: string, script: string, clients: number, seconds: number): Promise<PgbenchResult> {
  const u = new URL(url);
  const args = [
    "-n",
    "-M",
    "prepared",
    "-f",
    script,
    "-c",
    String(clients),
    "-j",
    "2",
    "-T",
    String(seconds),
    "-h",
    u.hostname,
    "-p",
    u.port || "5432",
    "-U",
    decodeURIComponent(u.username || "postgres"),
    u.pathname.slice(1),
  ];
  const env = { ...process.env, ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}) };
  const { stdout } = await run(process.env.PGBENCH ?? "pgbench", args, { env, maxBuffer: 16 * 2 ** 20 }).catch(
    (e: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`pgbench failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
    },
  );
  const num = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? Number.NaN);
  return {
    clients,
    tps: Math.round(num(/tps = ([\d.]+)/)),
    transactions: num(/number of transactions actually processed: (\d+)/),
    latencyMs: num(/latency average = ([\d.]+) ms/),
    failed: num(/number of failed transactions: (\d+)/) || 0,
  };
}

async function one(admin: pg.Client, sql: string, params: unknown[]): Promise<Record<string, unknown>> {
  const { rows } = await admin.query<{ j: string }>(sql, params);
  if (!rows[0]) throw new Error(`bench: pgbench script: no row for ${sql.slice(0, 120)}`);
  return JSON.parse(rows[0].j) as Record<string, unknown>;
}

/**
 * The audit entry's INSERT. Entries are stored as their hashed bytes (`canonical`), every other
 * column generated from them (docs/performance.md, "Verification"), so the copy writes what an
 * append writes: id, the bytes with the bench's organization and a fresh seq in place, and the
 * hash (copied: pgbench measures the write, nothing verifies this chain).
 */
function auditInsert(entry: Record<string, unknown>, freeOrgId: string, orgId: string): string {
  if (typeof entry.canonical !== "string")
    return insert("audit_entries", entry, {
      id: "gen_random_uuid()",
      orgId: lit(orgId),
      seq: "nextval('bench_pgbench_seq')",
      createdAt: "now()",
    });
  // The top-level keys come in JCS order (action, actor, createdAt, data, orgId, prevHash, seq, …),
  // so the last "orgId" and the "seq" after the last "prevHash" are the entry's own, not data's.
  const bytes0 = entry.canonical;
  const org = bytes0.lastIndexOf(`"orgId":"${freeOrgId}"`);
  const seq = /"seq":\d+/.exec(bytes0.slice(bytes0.lastIndexOf('"prevHash":')));
  if (org < 0 || !seq) throw new Error("bench: pgbench script: the audit entry's bytes have no orgId or seq");
  const canonical = `${bytes0.slice(0, org)}"orgId":"${orgId}"${bytes0.slice(org + `"orgId":"${freeOrgId}"`.length)}`;
  const at = canonical.lastIndexOf('"prevHash":') + seq.index;
  const bytes = `${lit(canonical.slice(0, at))} || ${lit('"seq":')} || nextval('bench_pgbench_seq') || ${lit(canonical.slice(at + seq[0].length))}`;
  return `INSERT INTO audit_entries (id, canonical, hash) VALUES (gen_random_uuid(), ${bytes}, ${lit(String(entry.hash))});`;
}

/** A string literal pgbench leaves alone. */
const lit = (s: string) => `E'${s.replace(/\\/g, "\\\\").replace(/'/g, "''").replace(/:/g, "\\x3a")}'`;

function insert(table: string, row: Record<string, unknown>, overrides: Record<string, string>): string {
  const cols = Object.keys(row);
  const values = cols.map((c) => {
    if (c in overrides) return overrides[c]!;
    const v = row[c];
    if (v === null || v === undefined) return "NULL";
    if (Array.isArray(v)) throw new Error(`bench: pgbench script: ${table}.${c} is an array`);
    return lit(typeof v === "object" ? JSON.stringify(v) : String(v));
  });
  return `INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${values.join(", ")});`;
}
