import { describe, expect, it } from "vitest";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { insertApiKey } from "../org/api-keys";
import { appendAudit, GENESIS_HASH } from "./chain";
import { appendMany, READABLE_COLUMN_CHANGES, rewriteEntry } from "./tampering";
import { verifyChain } from "./verify";

const actor = "system:audit-test";

async function verifyOverHttp(org: TestOrg) {
  const { url } = await testServer();
  const res = await client(url, org.apiKey).post("/v1/compliance/audit/verify");
  expect(res.status).toBe(200);
  return res.body as { valid: boolean; entries: number; headHash: string; firstInvalidEntryId?: string; reason?: string };
}

function expectContiguous(entries: { seq: number; prevHash: string; hash: string }[]) {
  entries.forEach((e, i) => {
    expect(e.seq).toBe(i + 1);
    expect(e.prevHash).toBe(i === 0 ? GENESIS_HASH : entries[i - 1]!.hash);
  });
}

describe("audit chain under concurrency", () => {
  it("serialises 100 concurrent appends of one organization into one gapless chain", async () => {
    const { db, orgId } = await createTestOrg();
    const before = await db.auditEntry.count({ where: { orgId } });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        db.$transaction((tx) => appendAudit(tx, { orgId, actor }, { action: "test.concurrent", data: { i } }), {
          maxWait: 60_000,
          timeout: 60_000,
        }),
      ),
    );
    const entries = await db.auditEntry.findMany({ where: { orgId }, orderBy: { seq: "asc" } });
    expect(entries).toHaveLength(before + 100);
    expect(entries.filter((e) => e.action === "test.concurrent")).toHaveLength(100);
    expect(new Set(results.map((r) => r.seq)).size).toBe(100);
    expectContiguous(entries);
    for (let i = 1; i < entries.length; i++)
      expect(entries[i]!.createdAt.getTime()).toBeGreaterThanOrEqual(entries[i - 1]!.createdAt.getTime());
    const head = await db.auditHead.findUniqueOrThrow({ where: { orgId } });
    expect(head).toMatchObject({ seq: entries.length, hash: entries[entries.length - 1]!.hash });
    // The head remembers the newest createdAt (what keeps timestamps monotonic), read back zone-free.
    const [raw] = await db.$queryRaw<{ ms: number }[]>`
      SELECT (extract(epoch from "updatedAt") * 1000)::float8 AS ms FROM audit_heads WHERE "orgId" = ${orgId}::uuid`;
    expect(Math.round(raw!.ms)).toBe(entries[entries.length - 1]!.createdAt.getTime());
    expect(await verifyChain(db, orgId)).toEqual({ valid: true, entries: entries.length, headHash: head.hash });
  });

  it("keeps separate valid chains for two organizations appending at the same time", async () => {
    const a = await createTestOrg();
    const b = await createTestOrg();
    const db = a.db;
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const orgId = i % 2 ? a.orgId : b.orgId;
        return db.$transaction((tx) => appendAudit(tx, { orgId, actor }, { action: "test.interleaved", data: { i } }), {
          maxWait: 60_000,
          timeout: 60_000,
        });
      }),
    );
    for (const org of [a, b]) {
      const entries = await db.auditEntry.findMany({ where: { orgId: org.orgId }, orderBy: { seq: "asc" } });
      expect(entries.filter((e) => e.action === "test.interleaved")).toHaveLength(30);
      expectContiguous(entries);
      expect((await verifyChain(db, org.orgId)).valid).toBe(true);
      expect((await verifyOverHttp(org)).valid).toBe(true);
    }
  });

  it("leaves no entry and a valid chain when the appending transaction rolls back", async () => {
    const { db, orgId } = await createTestOrg();
    const entries = await appendMany(db, orgId, 2);
    const headBefore = await db.auditHead.findUniqueOrThrow({ where: { orgId } });
    await expect(
      db.$transaction(async (tx) => {
        await appendAudit(tx, { orgId, actor }, { action: "test.rolled_back" });
        throw new Error("business rule failed after the audit entry");
      }),
    ).rejects.toThrow("business rule failed");
    expect(await db.auditEntry.count({ where: { orgId, action: "test.rolled_back" } })).toBe(0);
    expect(await db.auditHead.findUniqueOrThrow({ where: { orgId } })).toMatchObject({ seq: headBefore.seq, hash: headBefore.hash });
    const next = await db.$transaction((tx) => appendAudit(tx, { orgId, actor }, { action: "test.after_rollback" }));
    expect(next.seq).toBe(entries.length + 1);
    expect(next.prevHash).toBe(entries[entries.length - 1]!.hash);
    expect(await verifyChain(db, orgId)).toMatchObject({ valid: true, entries: entries.length + 1 });
  });
});

describe("POST /v1/compliance/audit/verify detects tampering", () => {
  it("answers valid with the entry count and head hash of an untouched chain", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 3);
    expect(await verifyOverHttp(org)).toEqual({ valid: true, entries: entries.length, headHash: entries[entries.length - 1]!.hash });
  });

  it("names an entry whose data was changed in SQL", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 5);
    const target = entries[2]!;
    await rewriteEntry(org.db, target.id, { data: '{"i": 999}' });
    const res = await verifyOverHttp(org);
    expect(res).toMatchObject({ valid: false, firstInvalidEntryId: target.id, entries: 2 });
    expect(res.reason).toMatch(/hash/);
  });

  it("names an entry one byte of whose stored data text was changed", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 4);
    const target = entries[2]!;
    // data keeps its JCS bytes (json, not jsonb): {"i":2} as written.
    const [before] = await org.db.$queryRaw<{ t: string }[]>`SELECT data::text AS t FROM audit_entries WHERE id = ${target.id}::uuid`;
    const i = (target.data as { i: number }).i;
    expect(before!.t).toBe(`{"i":${i}}`);
    await rewriteEntry(org.db, target.id, { data: `{"i":${i + 1}}` });
    expect(await verifyOverHttp(org)).toMatchObject({ valid: false, firstInvalidEntryId: target.id, entries: 2 });
  });

  it("verifies by meaning entries whose data is not stored as its JCS text (appended before it was kept so)", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 3);
    // jsonb's own text form, as entries written before carry it: {"i": 1}.
    for (const e of entries.slice(1)) await rewriteEntry(org.db, e.id, { data: JSON.stringify(e.data).replace(":", ": ") });
    const [legacy] = await org.db.$queryRaw<{ t: string }[]>`SELECT data::text AS t FROM audit_entries WHERE id = ${entries[3]!.id}::uuid`;
    expect(legacy!.t).toBe(`{"i": ${(entries[3]!.data as { i: number }).i}}`);
    expect(await verifyOverHttp(org)).toMatchObject({ valid: true, entries: entries.length });
    // ...and a change of meaning there is still found.
    await rewriteEntry(org.db, entries[3]!.id, { data: '{"i": 7}' });
    expect(await verifyOverHttp(org)).toMatchObject({ valid: false, firstInvalidEntryId: entries[3]!.id });
  });

  it("names an entry whose action was changed", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 4);
    const target = entries[1]!;
    await rewriteEntry(org.db, target.id, { action: "test.innocent" });
    expect(await verifyOverHttp(org)).toMatchObject({ valid: false, firstInvalidEntryId: target.id });
  });

  it("names an entry whose createdAt or actor was changed", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 4);
    await rewriteEntry(org.db, entries[3]!.id, { createdAt: new Date(entries[3]!.createdAt.getTime() - 86_400_000).toISOString() });
    expect(await verifyOverHttp(org)).toMatchObject({ valid: false, firstInvalidEntryId: entries[3]!.id });
    await rewriteEntry(org.db, entries[1]!.id, { actor: "member:someone@example.test" });
    expect(await verifyOverHttp(org)).toMatchObject({ valid: false, firstInvalidEntryId: entries[1]!.id });
  });

  it("names the entry after a deleted middle entry", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 5);
    await org.db.$executeRaw`DELETE FROM audit_entries WHERE id = ${entries[2]!.id}::uuid`;
    const res = await verifyOverHttp(org);
    expect(res).toMatchObject({ valid: false, firstInvalidEntryId: entries[3]!.id });
    expect(res.reason).toMatch(/missing/);
  });

  it("reports a removed newest entry through the chain head", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 3);
    await org.db.$executeRaw`DELETE FROM audit_entries WHERE id = ${entries[entries.length - 1]!.id}::uuid`;
    const res = await verifyOverHttp(org);
    expect(res.valid).toBe(false);
    expect(res.entries).toBe(entries.length - 1);
    expect(res.reason).toMatch(/head/);
  });

  it("names the first of two entries whose seq numbers were swapped", async () => {
    const org = await createTestOrg();
    const entries = await appendMany(org.db, org.orgId, 5);
    const [x, y] = [entries[2]!, entries[3]!];
    await rewriteEntry(org.db, x.id, { seq: -1 });
    await rewriteEntry(org.db, y.id, { seq: x.seq });
    await rewriteEntry(org.db, x.id, { seq: y.seq });
    expect(await verifyOverHttp(org)).toMatchObject({ valid: false, firstInvalidEntryId: y.id });
  });

  it("verifies one organization without depending on another's rows", async () => {
    const broken = await createTestOrg();
    const intact = await createTestOrg();
    const brokenEntries = await appendMany(broken.db, broken.orgId, 3);
    await appendMany(intact.db, intact.orgId, 3);
    await rewriteEntry(broken.db, brokenEntries[1]!.id, { subject: "x" });
    expect((await verifyOverHttp(broken)).valid).toBe(false);
    expect((await verifyOverHttp(intact)).valid).toBe(true);
  });

  it("names an entry whose subjectType, subject, orgId or prevHash was changed in its hashed bytes", async () => {
    const other = await createTestOrg();
    for (const change of [{ subjectType: "other" }, { subject: null }, { orgId: other.orgId }, { prevHash: "f".repeat(64) }]) {
      const org = await createTestOrg();
      const entries = await appendMany(org.db, org.orgId, 3);
      const target = entries[1]!;
      await rewriteEntry(org.db, target.id, change);
      const res = await verifyOverHttp(org);
      // An entry moved to another organization leaves a gap in this one's chain.
      expect(res, JSON.stringify(change)).toMatchObject({
        valid: false,
        firstInvalidEntryId: "orgId" in change ? entries[2]!.id : target.id,
      });
    }
  });

  it("refuses a change to any readable column itself: each is generated from the hashed bytes", async () => {
    const org = await createTestOrg();
    const [entry] = await appendMany(org.db, org.orgId, 1);
    const changes: Record<string, string> = { orgId: "gen_random_uuid()", seq: "seq + 1", ...READABLE_COLUMN_CHANGES };
    for (const [column, value] of Object.entries(changes)) {
      await expect(
        org.db.$executeRawUnsafe(`UPDATE audit_entries SET "${column}" = ${value} WHERE id = $1::uuid`, entry!.id),
        column,
      ).rejects.toThrow(/can only be updated to DEFAULT/);
    }
    expect(await verifyOverHttp(org)).toMatchObject({ valid: true });
  });
});

async function keyWithScopes(org: TestOrg, scopes: ("read" | "admin" | "compliance_export")[]) {
  const { raw } = await org.db.$transaction((tx) => insertApiKey(tx, org.orgId, { name: "limited", scopes, createdBy: actor }));
  return raw;
}

describe("GET /v1/admin/audit", () => {
  it("lists the caller's entries newest first and pages on with before", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const other = await createTestOrg();
    await appendMany(other.db, other.orgId, 2);
    const entries = await appendMany(org.db, org.orgId, 6);
    const api = client(url, org.apiKey);
    const first = await api.get("/v1/admin/audit?limit=4");
    expect(first.status).toBe(200);
    const newest = [...entries].reverse();
    expect(first.body.entries.map((e: { id: string }) => e.id)).toEqual(newest.slice(0, 4).map((e) => e.id));
    expect(first.body.entries[0]).toEqual({
      id: newest[0]!.id,
      seq: newest[0]!.seq,
      actor,
      action: "test.step",
      subjectType: "step",
      subject: "5",
      data: { i: 5 },
      createdAt: newest[0]!.createdAt.toISOString(),
      prevHash: newest[0]!.prevHash,
      hash: newest[0]!.hash,
      // Added for readers: names and a sentence, with the chained fields above unchanged.
      actorName: "The system (audit-test)",
      subjectName: null,
      summary: "The system (audit-test): test step",
    });
    expect(first.body.nextBefore).toBe(newest[3]!.seq);
    const second = await api.get(`/v1/admin/audit?limit=4&before=${first.body.nextBefore}`);
    expect(second.body.entries.map((e: { id: string }) => e.id)).toEqual(newest.slice(4).map((e) => e.id));
    expect(second.body.nextBefore).toBeNull();
    expect(second.body.entries.every((e: { id: string }) => entries.some((x) => x.id === e.id))).toBe(true);
  });

  it("rejects a limit outside 1..200 and a key without the admin scope", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    for (const q of ["limit=0", "limit=201", "limit=abc", "before=0"]) {
      expect((await client(url, org.apiKey).get(`/v1/admin/audit?${q}`)).status).toBe(400);
    }
    const res = await client(url, await keyWithScopes(org, ["compliance_export"])).get("/v1/admin/audit");
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
  });

  it("refuses verification to a key without compliance_export", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await client(url, await keyWithScopes(org, ["read", "admin"])).post("/v1/compliance/audit/verify");
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("missing_scope");
  });
});
