import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import pg from "pg";
import { describe, expect, inject, it, vi } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { type Db, Prisma } from "../../db/client";
import { client, createTestOrg } from "../../testing/harness";
import { startInstance, stopInstance } from "../../testing/instance";
import { startPgbouncer } from "../../testing/pgbouncer";
import { entryCanonical, GENESIS_HASH, type HashFields } from "./chain";
import { HashThread } from "./hash-thread";
import { nativeDigests } from "./native-digests";
import { SegmentThreads, segmentThreads } from "./segment-threads";
import { rewriteEntry, type StoredFields } from "./tampering";
import { ChainChecker, chunksReadAgain, columnByColumnChecks, ENTRY_COLUMNS, type EntryRow, verifyChain, verifyOnPostgres } from "./verify";

// verifyChain hashes each entry's stored bytes (every readable column generated from them) and
// reads a long chain as two halves on two sessions. Its answer must be the column-by-column walk's
// (exactVerify below) for any entry and any change to any column (made, as it now must be, through
// the stored bytes), wherever the halves meet.

type Spec = Omit<HashFields, "orgId" | "seq" | "prevHash"> & { data: Record<string, unknown> };

/** `n` plain entries a millisecond apart, each naming its step. */
const steps = (n: number): Spec[] =>
  Array.from({ length: n }, (_, i) => ({
    actor: "system:test",
    action: "test.step",
    subjectType: "step",
    subject: String(i),
    data: { i },
    createdAt: new Date(Date.UTC(2026, 0, 1) + i),
  }));

/**
 * Text PostgreSQL stores and JSON.stringify can write: no NUL (text columns refuse it; jsonb refuses
 * \u0000). Often the characters JSON escapes or that differ between encoders.
 */
const char = fc.oneof(
  fc.constantFrom('"', "\\", "\n", "\t", "\b", "\f", "\r", "\u0001", "\u001f", "\u007f", "\u2028", "é", "😀", "/", "<"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
);
const str = fc.string({ unit: char, maxLength: 12 }).filter((s) => !s.includes("\u0000"));
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.constantFrom(1e21, 0.1, -0, 1e-7, 2 ** 53, -1.5e-300, 123456789.125),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    str,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(str, tie("value"), { maxKeys: 4 }),
  ),
})).value;
const spec: fc.Arbitrary<Spec> = fc.record({
  actor: fc.oneof(str, fc.constant("system:test")),
  action: fc.oneof(str, fc.constant("test.step")),
  subjectType: fc.option(str),
  subject: fc.option(str),
  data: fc.dictionary(str, json, { maxKeys: 5 }),
  createdAt: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }).map((ms) => new Date(ms)),
});

const TAMPERS = [
  "none",
  "legacy data text",
  "data",
  "action",
  "actor",
  "subject",
  "subjectType",
  "createdAt",
  "seq",
  "prevHash",
  "hash",
  "delete",
  "insert",
  // The separators a chunk's values are joined with (segment.ts, chunkSql), inside a value.
  "prevHash with a comma",
  "prevHash then a comma",
  "hash with a comma",
  "newline in the bytes",
] as const;
type Tamper = (typeof TAMPERS)[number];

/** Writes a chain for `orgId` (replacing its entries) as appendAudit would: data as its JCS text. */
async function writeChain(db: Db, orgId: string, specs: Spec[]): Promise<{ id: string; hash: string }[]> {
  await db.$executeRaw`DELETE FROM audit_entries WHERE "orgId" = ${orgId}::uuid`;
  let prevHash = GENESIS_HASH;
  const written: { id: string; hash: string }[] = [];
  for (const [i, s] of specs.entries()) {
    const fields: HashFields = { ...s, orgId, seq: i + 1, prevHash };
    const canonical = entryCanonical(fields);
    const hash = sha256Hex(canonical);
    const [row] = await db.$queryRaw<{ id: string }[]>`
      INSERT INTO audit_entries (id, canonical, hash) VALUES (gen_random_uuid(), ${canonical}, ${hash}) RETURNING id::text`;
    written.push({ id: row!.id, hash });
    prevHash = hash;
  }
  await db.$executeRaw`
    INSERT INTO audit_heads ("orgId", seq, hash, "updatedAt") VALUES (${orgId}::uuid, ${specs.length}, ${prevHash}, now())
    ON CONFLICT ("orgId") DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash`;
  return written;
}

/** The column-by-column walk (what the embedded database and exports use), in one snapshot. */
function exactVerify(db: Db, orgId: string) {
  return db.$transaction(
    async (tx) => {
      const head = await tx.auditHead.findUnique({ where: { orgId }, select: { seq: true, hash: true } });
      const rows = await tx.$queryRaw<Record<string, unknown>[]>(
        Prisma.sql`SELECT ${Prisma.raw(ENTRY_COLUMNS)} FROM audit_entries WHERE "orgId" = ${orgId}::uuid AND seq >= 1 ORDER BY seq`,
      );
      const checker = new ChainChecker(orgId);
      const failed = checker.check(rows.map((r) => Object.values(r) as EntryRow));
      if (failed) return failed;
      const stray = await tx.auditEntry.findFirst({ where: { orgId, seq: { lt: 1 } }, select: { id: true } });
      return checker.finish(head, stray?.id);
    },
    { isolationLevel: "RepeatableRead" },
  );
}

/** Changes entry `at` (whose columns are `current`) in one way; `other` supplies an inserted entry. */
async function tamper(
  db: Db,
  orgId: string,
  entries: { id: string; hash: string }[],
  kind: Tamper,
  at: number,
  current: Spec,
  other: Spec,
) {
  const id = entries[at]!.id;
  // Every hashed column is generated from the stored bytes: a change to one is a change to them.
  const rewrite = (change: Partial<StoredFields>) => rewriteEntry(db, id, change);
  switch (kind) {
    case "none":
      return;
    case "legacy data text": // as entries appended before data kept its JCS text: jsonb's text form
      for (const e of entries) {
        const [row] = await db.$queryRaw<{ t: string }[]>`SELECT (data::jsonb)::text AS t FROM audit_entries WHERE id = ${e.id}::uuid`;
        await rewriteEntry(db, e.id, { data: row!.t });
      }
      return;
    case "data":
      await rewrite({ data: jcs({ ...current.data, tampered: current.data.tampered === 1 ? 2 : 1 }) });
      return;
    case "action":
    case "actor":
      await rewrite({ [kind]: `${current[kind]}!` });
      return;
    case "subject":
    case "subjectType":
      await rewrite({ [kind]: current[kind] === null ? "x" : null });
      return;
    case "createdAt":
      await rewrite({ createdAt: new Date(current.createdAt.getTime() + 1).toISOString() });
      return;
    case "seq":
      await rewrite({ seq: at + 1 + 1000 });
      return;
    case "prevHash": {
      const [row] = await db.$queryRaw<{ v: string }[]>`SELECT "prevHash" AS v FROM audit_entries WHERE id = ${id}::uuid`;
      await rewrite({ prevHash: `${row!.v.slice(0, -1)}${row!.v.endsWith("0") ? "1" : "0"}` });
      return;
    }
    case "hash": {
      const [row] = await db.$queryRaw<{ v: string }[]>`SELECT hash AS v FROM audit_entries WHERE id = ${id}::uuid`;
      await db.$executeRaw`UPDATE audit_entries SET hash = ${`${row!.v.slice(0, -1)}${row!.v.endsWith("0") ? "1" : "0"}`} WHERE id = ${id}::uuid`;
      return;
    }
    case "prevHash with a comma":
    case "prevHash then a comma": {
      const [row] = await db.$queryRaw<{ v: string }[]>`SELECT "prevHash" AS v FROM audit_entries WHERE id = ${id}::uuid`;
      await rewrite({ prevHash: kind === "prevHash then a comma" ? `${row!.v},${row!.v}` : `${row!.v.slice(0, 30)},${row!.v.slice(31)}` });
      return;
    }
    case "hash with a comma":
      await db.$executeRaw`UPDATE audit_entries SET hash = overlay(hash placing ',' from 33 for 1) WHERE id = ${id}::uuid`;
      return;
    case "newline in the bytes": // JSON whitespace: the same fields, other bytes
      await db.$executeRaw`UPDATE audit_entries SET canonical = replace(canonical, ',"seq":', E',\n"seq":') WHERE id = ${id}::uuid`;
      return;
    case "delete":
      await db.$executeRaw`DELETE FROM audit_entries WHERE id = ${id}::uuid`;
      return;
    case "insert": {
      // A well-formed entry after the last one, without moving the head.
      const last = entries[entries.length - 1]!;
      const canonical = entryCanonical({ ...other, orgId, seq: entries.length + 1, prevHash: last.hash });
      await db.$executeRaw`INSERT INTO audit_entries (id, canonical, hash) VALUES (gen_random_uuid(), ${canonical}, ${sha256Hex(canonical)})`;
      return;
    }
  }
}

describe("verifyChain from the database's hashed text, on one or two sessions", () => {
  it("answers exactly as the column-by-column walk for any entries, any change to any column, any split", async () => {
    const org = await createTestOrg();
    await fc.assert(
      fc.asyncProperty(
        fc.array(spec, { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...TAMPERS),
        fc.nat(),
        fc.nat(),
        spec,
        async (specs, kind, at, split, other) => {
          const entries = await writeChain(org.db, org.orgId, specs);
          await tamper(org.db, org.orgId, entries, kind, at % entries.length, specs[at % entries.length]!, other);
          const exact = await exactVerify(org.db, org.orgId);
          if (kind === "none" || kind === "legacy data text" || kind === "newline in the bytes") expect(exact.valid).toBe(true);
          else expect(exact.valid).toBe(false);
          const checked = columnByColumnChecks();
          const readAgain = chunksReadAgain();
          expect(await verifyChain(org.db, org.orgId)).toEqual(exact);
          // An intact chain of entries as appendAudit writes them hashes from the database's text alone.
          if (kind === "none") expect([columnByColumnChecks(), chunksReadAgain()]).toEqual([checked, readAgain]);
          // splitAt 1 and beyond the last seq read on one session; 2..n on two; hashed on the thread or here,
          // with the native digest module (the default where it was built) or node:crypto.
          const splitAt = 1 + (split % (entries.length + 1));
          expect(await verifyOnPostgres(org.orgId, { splitAt, hashOn: "thread" })).toEqual(exact);
          expect(await verifyOnPostgres(org.orgId, { splitAt, hashOn: "here" })).toEqual(exact);
          expect(await verifyOnPostgres(org.orgId, { splitAt, hashOn: "here", digests: "node" })).toEqual(exact);
          expect(await verifyOnPostgres(org.orgId, { splitAt, readOn: "threads" })).toEqual(exact);
          expect(await verifyOnPostgres(org.orgId, { splitAt, readOn: "threads", digests: "node" })).toEqual(exact);
        },
      ),
      { numRuns: 120 },
    );
  });

  it("finds a break at the seam of the two sessions' halves, and none in an intact chain split anywhere", async () => {
    const org = await createTestOrg();
    const specs = steps(8);
    let entries = await writeChain(org.db, org.orgId, specs);
    for (let splitAt = 1; splitAt <= 9; splitAt++) {
      expect(await verifyOnPostgres(org.orgId, { splitAt })).toEqual({ valid: true, entries: 8, headHash: entries[7]!.hash });
    }
    // The first entry of the second half deleted, changed or relinked: named as the walk names it.
    for (const kind of ["delete", "prevHash", "hash", "data", "seq"] as const) {
      entries = await writeChain(org.db, org.orgId, specs);
      await tamper(org.db, org.orgId, entries, kind, 4, specs[4]!, specs[0]!);
      const exact = await exactVerify(org.db, org.orgId);
      expect(exact).toMatchObject({
        valid: false,
        firstInvalidEntryId: kind === "delete" || kind === "seq" ? entries[5]!.id : entries[4]!.id,
      });
      expect(await verifyOnPostgres(org.orgId, { splitAt: 5 })).toEqual(exact);
      // ...and the last entry of the first half.
      entries = await writeChain(org.db, org.orgId, specs);
      await tamper(org.db, org.orgId, entries, kind, 3, specs[3]!, specs[0]!);
      expect(await verifyOnPostgres(org.orgId, { splitAt: 5 })).toEqual(await exactVerify(org.db, org.orgId));
    }
  });

  it("answers as the walk does when its segment threads die or are missing, reading on its own sessions", async () => {
    const org = await createTestOrg();
    const specs = steps(8);
    // Threads that exit on their first walk, as ones that run out of memory would.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-segment-"));
    const dyingFile = path.join(dir, "dying-thread.mjs");
    fs.writeFileSync(dyingFile, `import { parentPort } from "node:worker_threads";\nparentPort.on("message", () => process.exit(3));\n`);
    for (const kind of ["none", "data", "prevHash"] as const) {
      const entries = await writeChain(org.db, org.orgId, specs);
      await tamper(org.db, org.orgId, entries, kind, 6, specs[6]!, specs[0]!);
      const exact = await exactVerify(org.db, org.orgId);
      const dying = new SegmentThreads({ file: pathToFileURL(dyingFile).href });
      expect(dying.available()).toBe(true);
      const answer = await verifyOnPostgres(org.orgId, { splitAt: 5, readOn: "threads", segments: dying });
      expect(answer).toEqual(exact);
      expect(answer?.valid).toBe(kind === "none");
      // Neither half was answered; both were walked on the first session, and no thread starts again.
      expect(dying.answered).toBe(0);
      expect(dying.available()).toBe(false);
      // A module that is not there (a bundled copy of this code): the two pooled sessions read the halves.
      const missing = new SegmentThreads({ file: pathToFileURL(path.join(dir, "no-such-thread.ts")).href });
      expect(missing.available()).toBe(false);
      expect(await verifyOnPostgres(org.orgId, { splitAt: 5, readOn: "threads", segments: missing })).toEqual(exact);
    }
    // A first half that fails is the answer, whatever the second half holds.
    const entries = await writeChain(org.db, org.orgId, specs);
    await tamper(org.db, org.orgId, entries, "data", 2, specs[2]!, specs[0]!);
    const dying = new SegmentThreads({ file: pathToFileURL(dyingFile).href });
    const answer = await verifyOnPostgres(org.orgId, { splitAt: 5, readOn: "threads", segments: dying });
    expect(answer).toEqual(await exactVerify(org.db, org.orgId));
    expect(answer).toMatchObject({ valid: false, entries: 2 });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("walks a half on a segment thread through PgBouncer in transaction mode, in the snapshot of a session on PostgreSQL itself", async () => {
    const org = await createTestOrg();
    const n = 1_100;
    await writeChainFast(org.db, org.orgId, steps(n));
    const [head] = await org.db.$queryRaw<{ hash: string }[]>`SELECT hash FROM audit_heads WHERE "orgId" = ${org.orgId}::uuid`;
    const bouncer = await startPgbouncer(inject("adminDatabaseUrl"), { poolSize: 2 });
    const first = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await first.connect();
    try {
      await first.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const snapshot = (await first.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0]!.id;
      // Written after the snapshot: one entry more, every row new. The thread must see the chain as it was.
      await writeChainFast(org.db, org.orgId, steps(n + 1));
      const threads = new SegmentThreads();
      const url = bouncer.url(new URL(process.env.DATABASE_URL!).pathname.slice(1));
      const walk = await threads.walk(0, { url, snapshot, orgId: org.orgId, from: 1, to: n + 2, native: true });
      expect(walk).toEqual({
        first: { seq: 1, prevHash: GENESIS_HASH },
        count: n,
        expectedSeq: n + 1,
        prevHash: head!.hash,
        unsure: [],
        // The thread hashed with the native digest module, where the install could build it.
        ...(nativeDigests() ? { native: true } : {}),
      });
      expect(threads.answered).toBe(1);
      await first.query("COMMIT");
    } finally {
      await first.end();
      await bouncer.stop();
    }
  });

  it("does not wait on a segment thread whose transaction cannot begin behind a PgBouncer with no server connection free", async () => {
    const org = await createTestOrg();
    const n = 1_100;
    await writeChainFast(org.db, org.orgId, steps(n));
    const [head] = await org.db.$queryRaw<{ hash: string }[]>`SELECT hash FROM audit_heads WHERE "orgId" = ${org.orgId}::uuid`;
    const whole = { first: { seq: 1, prevHash: GENESIS_HASH }, count: n, expectedSeq: n + 1, prevHash: head!.hash, unsure: [] };
    const bouncer = await startPgbouncer(inject("adminDatabaseUrl"), { poolSize: 1 });
    const url = bouncer.url(new URL(process.env.DATABASE_URL!).pathname.slice(1));
    // Holds PgBouncer's only server connection: a BEGIN through it waits (by default up to
    // PgBouncer's query_wait_timeout, two minutes).
    const holder = new pg.Client({ connectionString: url });
    const first = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([holder.connect(), first.connect()]);
    try {
      await first.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const snapshot = (await first.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0]!.id;
      const job = { url, snapshot, orgId: org.orgId, from: 1, to: n + 2 };
      // Long enough for a loaded machine to connect and begin; the held connection below is never given within it.
      const threads = new SegmentThreads({ startWait: 2_000 });
      // The thread loads and walks once on PostgreSQL itself...
      expect(await threads.walk(0, { ...job, url: process.env.DATABASE_URL! })).toEqual(whole);
      await holder.query("BEGIN");
      await holder.query("SELECT 1");
      // ...then its session through PgBouncer cannot begin: the caller stops waiting.
      expect(await threads.walk(0, job)).toBeNull();
      expect(threads.gaveUp).toBe(1);
      // While the thread still holds that job, another walk is not queued behind it...
      expect(await threads.walk(0, job)).toBeNull();
      expect(threads.gaveUp).toBe(2);
      // ...and a verification reads on two pooled sessions, hashing on the hash thread, as where there are no threads.
      expect(threads.busy()).toBe(true);
      const hashing = new HashThread();
      const verified = await verifyOnPostgres(org.orgId, { splitAt: n / 2 + 1, segments: threads, thread: hashing });
      expect(verified).toMatchObject({ valid: true, entries: n });
      expect(threads.gaveUp).toBe(2);
      expect(hashing.answered).toBeGreaterThan(0);
      expect(hashing.answeredNative).toBe(nativeDigests() ? hashing.answered : 0);
      expect(threads.skipped).toBe(0);
      // Once the connection is free the thread's transaction begins, and it skips the walk it was told not to do.
      await holder.query("COMMIT");
      await vi.waitFor(() => expect(threads.skipped).toBe(1), { timeout: 10_000 });
      expect(threads.answered).toBe(1);
      // The thread goes on serving walks.
      expect(await threads.walk(0, job)).toEqual(whole);
      expect(threads.answered).toBe(2);
      expect(threads.busy()).toBe(false);
      await first.query("COMMIT");
    } finally {
      await Promise.all([holder.end(), first.end()]);
      await bouncer.stop();
    }
  });

  it("walks a long chain's halves on segment threads in an instance started from the test run's bundle, on two sessions of their own", async () => {
    const org = await createTestOrg();
    const n = 20_001;
    await writeChainFast(org.db, org.orgId, steps(n));
    const instance = await startInstance();
    try {
      const since = (await org.db.$queryRaw<{ at: Date }[]>`SELECT clock_timestamp() AS at`)[0]!.at;
      const answer = await client(instance.base, org.apiKey).post("/v1/compliance/audit/verify", {});
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ valid: true, entries: n });
      // The bundle's code found the threads' module among the sources: its two threads connected
      // during the verification (this file's database is its own).
      const sessions = await org.db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'bi-audit-segment' AND backend_start >= ${since}`;
      expect(sessions[0]!.n).toBe(2);
    } finally {
      await stopInstance(instance);
    }
  });

  it("answers as the walk does when its hash thread dies, reading again the chunks it did not answer", async () => {
    const org = await createTestOrg();
    const specs = steps(8);
    for (const kind of ["none", "data", "prevHash"] as const) {
      const entries = await writeChain(org.db, org.orgId, specs);
      await tamper(org.db, org.orgId, entries, kind, 6, specs[6]!, specs[0]!);
      // A thread that exits, as one that runs out of memory would, once it holds both halves' only
      // chunk: exiting on the first, it could be gone before the second half's chunk is given, which
      // would then be hashed here (the order of the two sessions' rows is not this test's to set).
      const dying = new HashThread(
        `let jobs = 0; require("node:worker_threads").parentPort.on("message", () => { if (++jobs === 2) process.exit(3); });`,
      );
      const readAgain = chunksReadAgain();
      const answer = await verifyOnPostgres(org.orgId, { splitAt: 5, hashOn: "thread", thread: dying });
      expect(answer).toEqual(await exactVerify(org.db, org.orgId));
      expect(answer?.valid).toBe(kind === "none");
      // Both halves went to the thread, which answered neither: both were read again entry by entry.
      expect(dying.answered).toBe(0);
      expect(chunksReadAgain() - readAgain).toBe(2);
    }
  });

  it("splits a long chain by default, and names a deleted entry at the seam as the walk does", async () => {
    const org = await createTestOrg();
    const n = 25_000; // past the length from which the chain is split by default
    const specs: Spec[] = Array.from({ length: n }, (_, i) => ({
      actor: "system:test",
      action: "test.step",
      subjectType: null,
      subject: null,
      data: { i, s: 'é"\\\n' },
      createdAt: new Date(Date.UTC(2026, 0, 1) + i),
    }));
    await writeChainFast(org.db, org.orgId, specs);
    const checked = columnByColumnChecks();
    const readAgain = chunksReadAgain();
    const walked = segmentThreads.answered;
    const result = await verifyChain(org.db, org.orgId);
    expect(columnByColumnChecks()).toBe(checked);
    // An intact chain: every chunk held, and each half was walked on a segment thread.
    expect(chunksReadAgain()).toBe(readAgain);
    expect(segmentThreads.answered).toBe(walked + 2);
    expect(result).toEqual(await exactVerify(org.db, org.orgId));
    expect(result).toMatchObject({ valid: true, entries: n });
    // The second half starts at seq n/2 + 1.
    await org.db.$executeRaw`DELETE FROM audit_entries WHERE "orgId" = ${org.orgId}::uuid AND seq = ${n / 2 + 1}`;
    const broken = await verifyChain(org.db, org.orgId);
    expect(broken).toEqual(await exactVerify(org.db, org.orgId));
    expect(broken).toMatchObject({ valid: false, entries: n / 2, reason: `entry ${n / 2 + 1} is missing before this entry` });
    // The entries come 512 to a protocol message: a changed hash at the first entry of a message
    // (its link is checked against the message before), and a whole message's range gone.
    await writeChainFast(org.db, org.orgId, specs);
    await org.db.$executeRaw`UPDATE audit_entries SET hash = repeat('0', 64) WHERE "orgId" = ${org.orgId}::uuid AND seq = 513`;
    const relinked = await verifyChain(org.db, org.orgId);
    expect(relinked).toEqual(await exactVerify(org.db, org.orgId));
    expect(relinked).toMatchObject({ valid: false, entries: 512, reason: "hash does not match the entry's contents" });
    // A tail hashed again from entry 513 on: only its link to the chunk before is broken.
    await writeChainFast(org.db, org.orgId, specs, 513);
    const rewritten = await verifyChain(org.db, org.orgId);
    expect(rewritten).toEqual(await exactVerify(org.db, org.orgId));
    expect(rewritten).toMatchObject({ valid: false, entries: 512, reason: "prevHash does not match the previous entry's hash" });
    await writeChainFast(org.db, org.orgId, specs);
    await org.db.$executeRaw`DELETE FROM audit_entries WHERE "orgId" = ${org.orgId}::uuid AND seq BETWEEN 1025 AND 1536`;
    const gap = await verifyChain(org.db, org.orgId);
    expect(gap).toEqual(await exactVerify(org.db, org.orgId));
    expect(gap).toMatchObject({ valid: false, entries: 1024, reason: "entry 1025 is missing before this entry" });
  });
});

/**
 * writeChain in a few statements, for long chains. From `relinkAt` on, the chain is hashed again
 * from another prevHash (as by someone who rewrote its tail): only that entry's link is broken.
 */
async function writeChainFast(db: Db, orgId: string, specs: Spec[], relinkAt?: number) {
  await db.$executeRaw`DELETE FROM audit_entries WHERE "orgId" = ${orgId}::uuid`;
  let prevHash = GENESIS_HASH;
  for (let start = 0; start < specs.length; start += 5_000) {
    const canonical: string[] = [];
    const hashes: string[] = [];
    for (const [j, s] of specs.slice(start, start + 5_000).entries()) {
      if (start + j + 1 === relinkAt) prevHash = "f".repeat(64);
      const text = entryCanonical({ ...s, orgId, seq: start + j + 1, prevHash });
      prevHash = sha256Hex(text);
      canonical.push(text);
      hashes.push(prevHash);
    }
    await db.$executeRaw`
      INSERT INTO audit_entries (id, canonical, hash) SELECT gen_random_uuid(), c, h FROM unnest(${canonical}::text[], ${hashes}::text[]) AS t(c, h)`;
  }
  await db.$executeRaw`
    INSERT INTO audit_heads ("orgId", seq, hash, "updatedAt") VALUES (${orgId}::uuid, ${specs.length}, ${prevHash}, now())
    ON CONFLICT ("orgId") DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash`;
}
