import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Prisma } from "../../db/client";
import { createTestOrg } from "../../testing/harness";
import { untilStatementWaits } from "../../testing/interleave";
import { appendAudit, GENESIS_HASH } from "./chain";
import { appendAuditGrouped, groupCommitStats } from "./group-commit";
import { verifyChain } from "./verify";

const actor = "system:group-test";

describe("grouped audit appends", () => {
  it("commits 64 concurrent appends of one organization in fewer statements, as one unbroken chain, each acknowledged with its committed entry", async () => {
    const { db, orgId } = await createTestOrg();
    const before = groupCommitStats();
    const entries = await Promise.all(
      Array.from({ length: 64 }, (_, i) => appendAuditGrouped(db, orgId, { actor, input: { action: "test.grouped", data: { i } } })),
    );
    const after = groupCommitStats();
    expect(after.appends - before.appends).toBe(64);
    expect(after.groups - before.groups).toBeLessThan(64);
    // Every acknowledged entry is in the table exactly as acknowledged.
    const stored = await db.auditEntry.findMany({ where: { orgId, action: "test.grouped" }, orderBy: { seq: "asc" } });
    expect(stored.map((e) => e.hash).sort()).toEqual(entries.map((e) => e.hash).sort());
    expect(new Set(entries.map((e) => e.seq)).size).toBe(64);
    const result = await verifyChain(db, orgId);
    expect(result.valid, result.reason).toBe(true);
    const head = await db.auditHead.findUniqueOrThrow({ where: { orgId } });
    expect(head).toMatchObject({ seq: result.entries, hash: result.headHash });
  });

  it("follows a head moved by another writer (a transaction's append in between) and stays one chain", async () => {
    const { db, orgId } = await createTestOrg();
    await appendAuditGrouped(db, orgId, { actor, input: { action: "test.a" } });
    // This process's view of the head is now stale.
    await db.$transaction((tx) => appendAudit(tx, { orgId, actor }, { action: "test.b" }));
    const misses = groupCommitStats().headMisses;
    const c = await appendAuditGrouped(db, orgId, { actor, input: { action: "test.c" } });
    expect(groupCommitStats().headMisses).toBe(misses + 1);
    const b = await db.auditEntry.findFirstOrThrow({ where: { orgId, action: "test.b" } });
    expect(c).toMatchObject({ seq: b.seq + 1, prevHash: b.hash });
    expect((await verifyChain(db, orgId)).valid).toBe(true);
  });

  it("fails only the append whose write fails; the rest of its group commits, and nothing of the failed one stays", async () => {
    const { db, orgId } = await createTestOrg();
    const table = `group_test_${Date.now()}`;
    await db.$executeRawUnsafe(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
    const insert = (id: number) => ({ sql: Prisma.sql`INSERT INTO ${Prisma.raw(table)} (id) VALUES (${id})`, rows: 1 });
    const results = await Promise.allSettled(
      [1, 2, 2, 3].map((id, i) =>
        appendAuditGrouped(db, orgId, { actor, input: { action: "test.write", data: { i } }, writes: [insert(id)] }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((await db.$queryRawUnsafe<{ id: number }[]>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id)).toEqual([1, 2, 3]);
    expect(await db.auditEntry.count({ where: { orgId, action: "test.write" } })).toBe(3);
    // A write that touches fewer rows than it must fails its append the same way.
    const none = { sql: Prisma.sql`UPDATE ${Prisma.raw(table)} SET id = id WHERE id = 99`, rows: 1 };
    await expect(appendAuditGrouped(db, orgId, { actor, input: { action: "test.none" }, writes: [none] })).rejects.toThrow(/bi_assert/);
    expect(await db.auditEntry.count({ where: { orgId, action: "test.none" } })).toBe(0);
    expect((await verifyChain(db, orgId)).valid).toBe(true);
    await db.$executeRawUnsafe(`DROP TABLE ${table}`);
  });

  it("runs the member whose write the statement names alone and retries the rest as one group, not one by one", async () => {
    const { db, orgId } = await createTestOrg();
    const table = `group_isolate_${Date.now()}`;
    await db.$executeRawUnsafe(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
    const insert = (id: number) => ({ sql: Prisma.sql`INSERT INTO ${Prisma.raw(table)} (id) VALUES (${id})`, rows: 1 });
    const missing = { sql: Prisma.sql`UPDATE ${Prisma.raw(table)} SET id = id WHERE id = 99`, rows: 1 };
    const before = groupCommitStats();
    // The first append's statement starts alone; the other four wait and form the next group.
    const writes = [[insert(1)], [insert(2)], [insert(3), missing], [insert(4)], [insert(5)]];
    const results = await Promise.allSettled(
      writes.map((w, i) => appendAuditGrouped(db, orgId, { actor, input: { action: "test.isolate", data: { i } }, writes: w })),
    );
    const after = groupCommitStats();
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    // Alone, the failing append reports its own write's number (its second), as callers read it.
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/bi_assert failed: write 1\b/);
    expect(after.isolations - before.isolations).toBe(1);
    expect(after.splits - before.splits).toBe(0);
    // Statements: the lone first, the failed group of four, the three others as one, the failing one alone.
    expect(after.groups - before.groups).toBe(2);
    expect((await db.$queryRawUnsafe<{ id: number }[]>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id)).toEqual([1, 2, 4, 5]);
    expect(await db.auditEntry.count({ where: { orgId, action: "test.isolate" } })).toBe(4);
    expect((await verifyChain(db, orgId)).valid).toBe(true);
    await db.$executeRawUnsafe(`DROP TABLE ${table}`);
  });

  it("commits an append's further entries (also) in its statement, chained right after it, among other members of the group", async () => {
    const { db, orgId } = await createTestOrg();
    const [first, , last] = await Promise.all([
      appendAuditGrouped(db, orgId, { actor, input: { action: "test.lone", data: { n: 0 } } }),
      appendAuditGrouped(db, orgId, {
        actor,
        input: { action: "test.main" },
        also: [
          { actor: "system:other", input: { action: "test.also", data: { n: 1 } } },
          { actor, input: { action: "test.also", data: { n: 2 } } },
        ],
      }),
      appendAuditGrouped(db, orgId, { actor, input: { action: "test.lone", data: { n: 3 } } }),
    ]);
    const stored = await db.auditEntry.findMany({ where: { orgId, action: { startsWith: "test." } }, orderBy: { seq: "asc" } });
    expect(stored.map((e) => e.action)).toEqual(["test.lone", "test.main", "test.also", "test.also", "test.lone"]);
    expect(stored[2]).toMatchObject({ actor: "system:other", data: { n: 1 } });
    expect(first.seq).toBe(stored[0]!.seq);
    expect(last.seq).toBe(stored[4]!.seq);
    // A failed write fails the append with all its entries.
    const none = { sql: Prisma.sql`UPDATE audit_heads SET seq = seq WHERE "orgId" = ${orgId}::uuid AND false`, rows: 1 };
    await expect(
      appendAuditGrouped(db, orgId, {
        actor,
        input: { action: "test.none" },
        writes: [none],
        also: [{ actor, input: { action: "test.none2" } }],
      }),
    ).rejects.toThrow(/bi_assert/);
    expect(await db.auditEntry.count({ where: { orgId, action: { in: ["test.none", "test.none2"] } } })).toBe(0);
    expect((await verifyChain(db, orgId)).valid).toBe(true);
  });

  it("runs beforeHead writes before it moves the head: a transaction holding their row and then appending waits for nothing, no deadlock", async () => {
    const { db, orgId } = await createTestOrg();
    const table = `group_test_first_${Date.now()}`;
    await db.$executeRawUnsafe(`CREATE TABLE ${table} (id int PRIMARY KEY, v int NOT NULL)`);
    await db.$executeRawUnsafe(`INSERT INTO ${table} VALUES (1, 0)`);
    const bump = { sql: Prisma.sql`UPDATE ${Prisma.raw(table)} SET v = v + 1 WHERE id = 1`, rows: 1, beforeHead: true };
    let grouped: Promise<unknown> | undefined;
    // The transaction takes the row, then the chain head (the lock order of a case transition).
    await db.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe(`SELECT id FROM ${table} WHERE id = 1 FOR UPDATE`);
        grouped = appendAuditGrouped(db, orgId, { actor, input: { action: "test.first" }, writes: [bump] });
        // Until the grouped statement waits for this row (holding the head, it would deadlock with the append below).
        await untilStatementWaits(db, [table]);
        await appendAudit(tx, { orgId, actor }, { action: "test.tx" });
      },
      { timeout: 20_000 },
    );
    await grouped;
    const stored = await db.auditEntry.findMany({ where: { orgId, action: { startsWith: "test." } }, orderBy: { seq: "asc" } });
    expect(stored.map((e) => e.action)).toEqual(["test.tx", "test.first"]);
    expect((await db.$queryRawUnsafe<{ v: number }[]>(`SELECT v FROM ${table}`))[0]!.v).toBe(1);
    // A beforeHead write that misses its rows fails the append as any other.
    const none = { sql: Prisma.sql`UPDATE ${Prisma.raw(table)} SET v = v WHERE id = 2`, rows: 1, beforeHead: true };
    await expect(appendAuditGrouped(db, orgId, { actor, input: { action: "test.none" }, writes: [none] })).rejects.toThrow(/bi_assert/);
    expect(await db.auditEntry.count({ where: { orgId, action: "test.none" } })).toBe(0);
    expect((await verifyChain(db, orgId)).valid).toBe(true);
    await db.$executeRawUnsafe(`DROP TABLE ${table}`);
  });

  it("leaves a chain that verifies after a process is killed with SIGKILL in the middle of group commits", async () => {
    const { db, orgId } = await createTestOrg();
    const script = path.resolve(import.meta.dirname, "../../testing/grouped-appender.ts");
    const child = spawn(process.execPath, ["--import", "tsx", script, orgId], {
      env: { ...process.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let acknowledged = 0;
    child.stdout!.on(
      "data",
      (d: Buffer) =>
        (acknowledged += d
          .toString()
          .split("\n")
          .filter((l) => l === "ok").length),
    );
    const exited = new Promise((r) => child.once("exit", r));
    const deadline = Date.now() + 60_000;
    while (acknowledged < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGKILL");
    await exited;
    expect(acknowledged).toBeGreaterThanOrEqual(300);
    // PostgreSQL ends the killed session's statement; wait until it has.
    await new Promise((r) => setTimeout(r, 500));
    const result = await verifyChain(db, orgId);
    expect(result.valid, result.reason).toBe(true);
    // Every acknowledged append is there (and perhaps some committed whose answer was cut off).
    expect(await db.auditEntry.count({ where: { orgId, action: "test.killed" } })).toBeGreaterThanOrEqual(acknowledged);
    const head = await db.auditHead.findUniqueOrThrow({ where: { orgId } });
    expect(head.hash).not.toBe(GENESIS_HASH);
  }, 90_000);
});
