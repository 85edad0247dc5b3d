import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { constants, PerformanceObserver } from "node:perf_hooks";
import type pg from "pg";
import Cursor from "pg-cursor";
import { sha256Hex } from "../../src/server/crypto/hash";
import { jcs } from "../../src/server/crypto/jcs";
import { type Db, withPgSession } from "../../src/server/db/client";
import { appendAudit, entryCanonical, GENESIS_HASH, type HashFields } from "../../src/server/services/audit/chain";
import { appendAuditGrouped } from "../../src/server/services/audit/group-commit";
import { nativeDigests } from "../../src/server/services/audit/native-digests";
import {
  ChainChecker,
  ENTRY_COLUMNS,
  type EntryRow,
  type VerifyResult,
  verifyChain,
  verifyOnPostgres,
} from "../../src/server/services/audit/verify";

const now = () => performance.now();

/** V8's full collections (mark-compact) on this thread so far. */
let fullGcs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullGcs++;
}).observe({ entryTypes: ["gc"] });

/**
 * Seconds `run` takes, and V8's full collections on this thread meanwhile: a run with dozens is
 * one V8 held at a tight heap limit (docs/performance.md, "Slow processes"), not the code.
 */
async function timed(run: () => Promise<unknown>): Promise<{ sec: number; fullGcs: number }> {
  const gcs = fullGcs;
  const t0 = now();
  await run();
  const sec = (now() - t0) / 1000;
  // GC entries reach the observer on a later turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { sec, fullGcs: fullGcs - gcs };
}

/** Runs `n` tasks with `concurrency` workers; returns the seconds it took. */
async function workers(n: number, concurrency: number, task: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await task(next++);
    }),
  );
  return (now() - t0) / 1000;
}

/** Entry `seq` of a bench chain (buildChain's, and the same bytes for raw SHA-256), created a millisecond apart from 2026-01-01. */
const benchEntry = (orgId: string, seq: number, prevHash: string): HashFields => ({
  orgId,
  seq,
  actor: "system:bench",
  action: "bench.appended",
  subjectType: "account",
  subject: `bench${seq}`,
  data: entryData(seq),
  createdAt: new Date(Date.UTC(2026, 0, 1) + seq),
  prevHash,
});

const entryData = (i: number) => ({ accountDid: `did:antelope:sandbox:bench${i}`, lifecycle: "provisional", riskDecision: "allow", n: i });

export type AppendResult = {
  appends: number;
  writers: number;
  /** Grouped appends (appendAuditGrouped, as free create commits). */
  chainPerSec: number;
  /** Appends each in a transaction of its own (appendAudit, as most services write). */
  txPerSec: number;
  plainPerSec: number;
  ratio: number;
  chainValid: boolean;
  chainEntries: number;
};

/**
 * 64 concurrent appenders on one organization's chain through the group commit, against 64
 * concurrent plain inserts of the same rows (no chain, each its own statement) in another
 * organization; for reference the same appends each in a transaction of its own (appendAudit);
 * then the whole chain is verified.
 */
export async function appendsVersusInserts(db: Db, chainOrg: string, plainOrg: string, n: number, writers = 64): Promise<AppendResult> {
  const before = (await db.auditHead.findUnique({ where: { orgId: chainOrg } }))?.seq ?? 0;
  const chainSec = await workers(n, writers, (i) =>
    appendAuditGrouped(db, chainOrg, {
      actor: "system:bench",
      input: { action: "bench.appended", subjectType: "account", subject: `bench${i}`, data: entryData(i) },
    }),
  );
  const txSec = await workers(n, writers, (i) =>
    db.$transaction(
      (tx) =>
        appendAudit(
          tx,
          { orgId: chainOrg, actor: "system:bench" },
          { action: "bench.appended", subjectType: "account", subject: `bench${i}`, data: entryData(i) },
        ),
      {
        timeout: 60_000,
        maxWait: 60_000,
      },
    ),
  );
  const plainSec = await workers(n, writers, (i) => {
    const fields: HashFields = {
      orgId: plainOrg,
      seq: 1_000_000 + i,
      actor: "system:bench",
      action: "bench.appended",
      subjectType: "account",
      subject: `bench${i}`,
      data: entryData(i),
      createdAt: new Date(),
      prevHash: GENESIS_HASH,
    };
    const canonical = entryCanonical(fields);
    return db.$executeRaw`INSERT INTO audit_entries (id, canonical, hash) VALUES (${randomUUID()}::uuid, ${canonical}, ${sha256Hex(canonical)})`;
  });
  const verified = await verifyChain(db, chainOrg);
  return {
    appends: n,
    writers,
    chainPerSec: Math.round(n / chainSec),
    txPerSec: Math.round(n / txSec),
    plainPerSec: Math.round(n / plainSec),
    ratio: round(plainSec / chainSec),
    chainValid: verified.valid && verified.entries === before + 2 * n,
    chainEntries: verified.entries,
  };
}

/**
 * Writes a valid chain of `n` entries for `orgId` straight into the tables (hashes computed as
 * appendAudit computes them), 5,000 rows per statement, and points the head at its end.
 */
export async function buildChain(admin: pg.Client, orgId: string, n: number): Promise<void> {
  // A bench organization: its provisioning entries make way for the generated chain.
  await admin.query(`DELETE FROM audit_entries WHERE "orgId" = $1`, [orgId]);
  await admin.query(`DELETE FROM audit_heads WHERE "orgId" = $1`, [orgId]);
  let prevHash = GENESIS_HASH;
  for (let start = 1; start <= n; start += 5000) {
    const cols = { id: [] as string[], canonical: [] as string[], hash: [] as string[] };
    for (let seq = start; seq < Math.min(n + 1, start + 5000); seq++) {
      const canonical = entryCanonical(benchEntry(orgId, seq, prevHash));
      const hash = sha256Hex(canonical);
      cols.id.push(randomUUID());
      cols.canonical.push(canonical);
      cols.hash.push(hash);
      prevHash = hash;
    }
    // As appendAudit writes an entry: its hashed bytes; the database generates the other columns.
    await admin.query(`INSERT INTO audit_entries (id, canonical, hash) SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[])`, [
      cols.id,
      cols.canonical,
      cols.hash,
    ]);
  }
  await admin.query(
    `INSERT INTO audit_heads ("orgId", seq, hash, "updatedAt") VALUES ($1::uuid, $2, $3, $4::timestamp)
     ON CONFLICT ("orgId") DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, "updatedAt" = EXCLUDED."updatedAt"`,
    [orgId, n, prevHash, benchEntry(orgId, n, prevHash).createdAt.toISOString()],
  );
  await settle(admin);
}

/**
 * buildChain in a process of its own (bench/build-chain.ts; `--build-apart`): the bench process
 * then idles while the chain is built, as a service does between requests, and its first
 * verification is one after a quiet spell (docs/performance.md, "Slow processes").
 */
export function buildChainApart(url: string, orgId: string, n: number): Promise<void> {
  const script = path.resolve(import.meta.dirname, "../build-chain.ts");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, url, orgId, String(n)], { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`bench/build-chain.ts ended with ${signal ?? `exit ${code}`}`)),
    );
  });
}

/**
 * Leaves the audit table as a running service's is between bursts of appends, so that a
 * verification timed next does not also pay for the build: its tuples' hint bits set (VACUUM,
 * which autovacuum would run on a table that only grows, and is off on some machines), and its
 * pages and WAL written out (CHECKPOINT: a million entries cross max_wal_size, and the checkpoint
 * that follows writes them while the next minutes are timed). CHECKPOINT needs superuser or
 * pg_checkpoint: without them the bench goes on, timing that write-back too.
 */
async function settle(admin: pg.Client): Promise<void> {
  await admin.query("VACUUM (ANALYZE) audit_entries");
  await admin.query("CHECKPOINT").catch((err: Error) => console.warn(`bench: no CHECKPOINT after the build (${err.message})`));
}

/**
 * Reads the audit table and the organization's part of its (orgId, seq) index through
 * PostgreSQL, untimed, so that they are in the operating system's cache (`--warm-cache`): on a
 * machine whose kernel reclaims file pages unread for a minute (this one's, docs/performance.md,
 * "First runs that read from storage") the first verification after a build otherwise reads part of
 * the chain from storage, which raw SHA-256 over bytes in memory never does.
 */
export async function warmOsCache(admin: pg.Client, orgId: string): Promise<void> {
  await admin.query("BEGIN");
  try {
    await admin.query("SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexonlyscan = off");
    await admin.query("SELECT sum(length(canonical)) FROM audit_entries");
  } finally {
    await admin.query("COMMIT");
  }
  await admin.query(`SELECT count(*) FROM audit_entries WHERE "orgId" = $1`, [orgId]);
}

/**
 * Bytes the segment threads' sessions (named `bi-audit-segment`) have read from storage so far
 * (`read_bytes` in /proc/<pid>/io of their backends), or null where the bench cannot see them: a
 * server on another machine, or a bench without the rights to read another user's /proc.
 */
export async function segmentStorageReads(admin: pg.Client): Promise<number | null> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'bi-audit-segment'`,
  );
  if (rows.length === 0) return null;
  let bytes = 0;
  for (const { pid } of rows) {
    try {
      const io = fs.readFileSync(`/proc/${pid}/io`, "utf8");
      bytes += Number(/^read_bytes: (\d+)$/m.exec(io)?.[1] ?? Number.NaN);
    } catch {
      return null;
    }
  }
  return Number.isFinite(bytes) ? bytes : null;
}

/**
 * SHA-256 of the bytes the verifier hashes (each entry's JCS text as buildChain wrote it), rebuilt
 * in chunks so memory stays small; only the hashing itself is timed: one-shot per entry (shaSec),
 * with a Hash object per entry (createHashSec), and with the JCS text made too (jcsShaSec).
 */
function rawSha(orgId: string, n: number): { shaSec: number; createHashSec: number; jcsShaSec: number } {
  let shaSec = 0;
  let createHashSec = 0;
  let jcsShaSec = 0;
  for (let start = 1; start <= n; start += 10_000) {
    const fields: HashFields[] = [];
    for (let seq = start; seq < Math.min(n + 1, start + 10_000); seq++) fields.push(benchEntry(orgId, seq, "x".repeat(64)));
    const j0 = now();
    const texts = fields.map((f) => entryCanonical(f, jcs(f.data)));
    for (const text of texts) sha256Hex(text);
    jcsShaSec += (now() - j0) / 1000;
    const s0 = now();
    for (const text of texts) sha256Hex(text);
    shaSec += (now() - s0) / 1000;
    const c0 = now();
    for (const text of texts) createHash("sha256").update(text).digest("hex");
    createHashSec += (now() - c0) / 1000;
  }
  return { shaSec, createHashSec, jcsShaSec };
}

/** verifyChain of an earlier checkout (`npm run bench -- --before <dir>`), reading the same database. */
export type BeforeVerify = { dir: string; verify(orgId: string): Promise<VerifyResult> };

export type VerifyBench = {
  /** The earlier checkout's verification in the same rounds as the repeated runs (median of three), and whether its answers equal this one's. */
  before?: { dir: string; sec: number; ratio: number; agrees: boolean };
  /**
   * Where the native digest module was built: the same verification hashing with node:crypto
   * (BI_NATIVE_DIGESTS=false) in the same rounds as the repeated runs (median of three), and whether its answers equal the native ones.
   */
  nodeDigests?: { sec: number; ratio: number; agrees: boolean };
  entries: number;
  /** V8's full collections on the verifying thread during the first run and each repeated one. */
  fullGcs: { first: number; repeated: number[] };
  /** Whether the table was read into the operating system's cache before the first run (`--warm-cache`). */
  cacheWarmed: boolean;
  /** MB the segment threads' sessions read from storage during the first run and each repeated one (null: not visible from here). */
  storageMb: { first: number | null; repeated: (number | null)[] };
  verifySec: number;
  /** The median of three more runs, each after a raw SHA-256 pass (the pool's sessions then warm). */
  verifyRepeatSec: number;
  valid: boolean;
  /** verifyChainBaseline (the verification before the database wrote the hashed text): seconds, and whether its answer equals verifyChain's. */
  baselineSec: number;
  baselineRatio: number;
  baselineAgrees: boolean;
  /** SHA-256 alone over the exact bytes the verifier hashes (each entry's JCS text), in memory, one-shot per entry: the median of three passes, each before a repeated run. */
  rawShaSec: number;
  /** The same with a Hash object per entry (createHash), the baseline of the earlier figures. */
  rawCreateHashSec: number;
  /** JCS + SHA-256 in memory: what re-canonicalising every entry would cost without the database. */
  jcsShaSec: number;
  ratio: number;
  /** rawShaSec / verifyRepeatSec. */
  ratioRepeat: number;
  usPerEntry: number;
};

/**
 * Times verifyChain over the organization's chain against raw SHA-256 of the same bytes, and the
 * verification before this one (verifyChainBaseline) in the same run. After the first run, three
 * rounds each time raw SHA-256 and then a verification: the machine's drift over the minute they
 * take hits both alike, and each is the median of its three. The baseline runs last: its walk
 * leaves this process a heap of garbage that the runs after it would collect.
 */
export async function verifyVersusRawSha(
  db: Db,
  admin: pg.Client,
  orgId: string,
  n: number,
  options: { before?: BeforeVerify; warmCache?: boolean } = {},
): Promise<VerifyBench> {
  const { before } = options;
  let result!: VerifyResult;
  if (options.warmCache) await warmOsCache(admin, orgId);
  /** The storage reads of `run`'s segment-thread sessions, in MB (sessions opened during it count from 0). */
  const readsDuring = async (run: () => Promise<void>): Promise<number | null> => {
    const r0 = await segmentStorageReads(admin);
    await run();
    const r1 = await segmentStorageReads(admin);
    return r1 === null ? null : round((r1 - (r0 ?? 0)) / 1e6);
  };
  let first!: { sec: number; fullGcs: number };
  const firstMb = await readsDuring(async () => {
    first = await timed(async () => (result = await verifyChain(db, orgId)));
  });
  const verifySec = first.sec;
  const repeatMb: (number | null)[] = [];
  const repeats: number[] = [];
  const repeatGcs: number[] = [];
  const raws: number[] = [];
  const befores: number[] = [];
  let beforeAgrees = true;
  let other: { createHashSec: number; jcsShaSec: number } | undefined;
  const timeNow = async () => {
    repeatMb.push(
      await readsDuring(async () => {
        const run = await timed(() => verifyChain(db, orgId));
        repeats.push(run.sec);
        repeatGcs.push(run.fullGcs);
      }),
    );
  };
  // Where the native digest module was built, the same verification hashing with node:crypto, in the same rounds.
  const nodeSecs: number[] = [];
  let nodeAgrees = true;
  const timeNode = async () => {
    const r0 = now();
    const answer = await verifyOnPostgres(orgId, { digests: "node" });
    nodeSecs.push((now() - r0) / 1000);
    nodeAgrees &&= JSON.stringify(answer) === JSON.stringify(result);
  };
  const native = nativeDigests() !== null;
  const timeBefore = async () => {
    const r0 = now();
    const answer = await before!.verify(orgId);
    befores.push((now() - r0) / 1000);
    beforeAgrees &&= JSON.stringify(answer) === JSON.stringify(result);
  };
  for (let i = 0; i < 3; i++) {
    const raw = rawSha(orgId, n);
    raws.push(raw.shaSec);
    other ??= raw;
    // With --before, its verification runs in the same round, first in every other one.
    if (before && i % 2 === 0) await timeBefore();
    if (native && i % 2 === 1) await timeNode();
    await timeNow();
    if (native && i % 2 === 0) await timeNode();
    if (before && i % 2 === 1) await timeBefore();
  }
  const b0 = now();
  const baseline = await verifyChainBaseline(orgId);
  const baselineSec = (now() - b0) / 1000;
  const median = (v: number[]) => [...v].sort((x, y) => x - y)[1]!;
  const verifyRepeatSec = median(repeats);
  const rawShaSec = median(raws);
  const { createHashSec: rawCreateHashSec, jcsShaSec } = other!;
  const beforeSec = before ? median(befores) : undefined;
  const nodeSec = native ? median(nodeSecs) : undefined;
  return {
    ...(nodeSec !== undefined ? { nodeDigests: { sec: round(nodeSec), ratio: round(rawShaSec / nodeSec), agrees: nodeAgrees } } : {}),
    ...(before && beforeSec !== undefined
      ? { before: { dir: before.dir, sec: round(beforeSec), ratio: round(rawShaSec / beforeSec), agrees: beforeAgrees } }
      : {}),
    entries: result.entries,
    fullGcs: { first: first.fullGcs, repeated: repeatGcs },
    cacheWarmed: options.warmCache ?? false,
    storageMb: { first: firstMb, repeated: repeatMb },
    verifySec: round(verifySec),
    verifyRepeatSec: round(verifyRepeatSec),
    valid: result.valid,
    baselineSec: round(baselineSec),
    baselineRatio: round(rawShaSec / baselineSec),
    baselineAgrees: JSON.stringify(baseline) === JSON.stringify(result),
    rawShaSec: round(rawShaSec),
    rawCreateHashSec: round(rawCreateHashSec),
    jcsShaSec: round(jcsShaSec),
    ratio: round(rawShaSec / verifySec),
    ratioRepeat: round(rawShaSec / verifyRepeatSec),
    usPerEntry: round((verifySec * 1e6) / n),
  };
}

/**
 * The verification as it was before PostgreSQL wrote the hashed text (PostgreSQL only): one
 * cursor of the columns, each entry's text concatenated and hashed here. Kept so that one bench
 * run measures the old and the new side by side.
 */
export async function verifyChainBaseline(orgId: string): Promise<VerifyResult> {
  const result = await withPgSession(async (client) => {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      const head = (await client.query<{ seq: number; hash: string }>(`SELECT seq, hash FROM audit_heads WHERE "orgId" = $1`, [orgId]))
        .rows[0];
      const checker = new ChainChecker(orgId);
      const cursor = client.query(
        new Cursor<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM audit_entries WHERE "orgId" = $1 AND seq >= 1 ORDER BY seq`, [orgId], {
          rowMode: "array",
        }),
      );
      let failed: VerifyResult | null = null;
      let next = cursor.read(5_000);
      for (;;) {
        const rows = await next;
        if (rows.length === 0) break;
        next = cursor.read(5_000);
        failed = checker.check(rows);
        if (failed) {
          await next.catch(() => undefined);
          break;
        }
      }
      await cursor.close();
      const stray = (
        await client.query<{ id: string }>(`SELECT id::text FROM audit_entries WHERE "orgId" = $1 AND seq < 1 LIMIT 1`, [orgId])
      ).rows[0];
      return failed ?? checker.finish(head ?? null, stray?.id);
    } finally {
      await client.query("COMMIT");
    }
  });
  if (!result) throw new Error("verifyChainBaseline needs PostgreSQL");
  return result;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
