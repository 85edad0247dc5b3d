import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { clientIpHash, keyedDeviceHash } from "../../crypto/risk-hash";
import { Prisma } from "../../db/client";
import { logger } from "../../log";
import { extraKey } from "../../testing/aml";
import { walletKey } from "../../testing/factories";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { boundAccount } from "../../testing/kyc-flow";
import { indexNodes } from "../../testing/query-plan";
import { assessRisk, busyOrganizations, busyWindowReads, isDisposableEmail, type RiskPlan, riskCountColumns } from "./risk";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

/** Earlier risk events, written directly so a window can be filled without hundreds of calls. */
type Fields = Record<string, unknown>;
async function pastEvents(db: any, orgId: string, n: number, fields: Fields | ((i: number) => Fields) = {}, agoMs = 1000) {
  await db.riskEvent.createMany({
    data: Array.from({ length: n }, (_, i) => ({
      orgId,
      kind: "manual",
      decision: "allow",
      createdAt: new Date(Date.now() - agoMs - i),
      ...(typeof fields === "function" ? fields(i) : fields),
    })),
  });
}

describe("isDisposableEmail (disposable-email-domains list)", () => {
  it("knows listed domains, subdomains of wildcard domains, and leaves ordinary providers alone", () => {
    expect(isDisposableEmail("someone@mailinator.com")).toBe(true);
    expect(isDisposableEmail("Someone@YOPMAIL.COM")).toBe(true);
    expect(isDisposableEmail("x@anything.33mail.com")).toBe(true);
    expect(isDisposableEmail("someone@gmail.com")).toBe(false);
    expect(isDisposableEmail("someone@example.org")).toBe(false);
  });
});

describe("POST /v1/risk/assess", () => {
  it("allows a clean request with score 0 and records a risk event with the device hash, never the fingerprint", async () => {
    const { db, org, api } = await setup();
    const res = await api.post("/v1/risk/assess", {
      deviceFingerprint: "fp-clean-device",
      email: "ada@gmail.com",
      ipAddress: "203.0.113.7",
      subjectRef: "user-1",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ kind: "manual", score: 0, decision: "allow", reasons: [] });
    expect(res.body.signals).toMatchObject({
      deviceEvents1h: 0,
      sharedDeviceSubjects: 1,
      ipEvents1h: 0,
      ipSource: "input",
      disposableEmail: false,
    });
    const row = await db.riskEvent.findUniqueOrThrow({ where: { id: res.body.assessmentId } });
    expect(row).toMatchObject({
      orgId: org.orgId,
      kind: "manual",
      subjectRef: "user-1",
      deviceFingerprintHash: keyedDeviceHash(sha256Hex("fp-clean-device")),
      clientIp: "203.0.113.0/24",
      score: 0,
      decision: "allow",
    });
    expect(JSON.stringify(row)).not.toContain("fp-clean-device");
    expect(JSON.stringify(row)).not.toContain("ada@gmail.com");
  });

  it("a disposable email domain alone sends the request to review", async () => {
    const { api } = await setup();
    const res = await api.post("/v1/risk/assess", { email: "throwaway@mailinator.com" });
    expect(res.body).toMatchObject({ score: 50, decision: "review", reasons: [{ code: "disposable_email", weight: 50 }] });
  });

  it("device velocity: 5 earlier attempts in the hour add 25, 10 add 50; with a disposable email that is a deny", async () => {
    const { db, org, api } = await setup();
    const fp = `fp-${randomUUID()}`;
    for (let i = 0; i < 5; i++) expect((await api.post("/v1/risk/assess", { deviceFingerprint: fp })).body.decision).toBe("allow");
    const sixth = await api.post("/v1/risk/assess", { deviceFingerprint: fp });
    expect(sixth.body.signals.deviceEvents1h).toBe(5);
    expect(sixth.body.reasons).toEqual([{ code: "device_velocity", weight: 25, message: expect.any(String) }]);
    await pastEvents(db, org.orgId, 4, { deviceFingerprintHash: sha256Hex(fp) });
    const denied = await api.post("/v1/risk/assess", { deviceFingerprint: fp, email: "x@yopmail.com" });
    expect(denied.body).toMatchObject({ score: 100, decision: "deny" });
    expect(denied.body.reasons.map((r: any) => [r.code, r.weight])).toEqual([
      ["disposable_email", 50],
      ["device_velocity", 50],
    ]);
    // Events older than the hour no longer count.
    const old = `fp-${randomUUID()}`;
    await pastEvents(db, org.orgId, 12, { deviceFingerprintHash: sha256Hex(old) }, 2 * 3_600_000);
    expect((await api.post("/v1/risk/assess", { deviceFingerprint: old })).body.signals).toMatchObject({
      deviceEvents1h: 0,
      deviceEvents24h: 12,
    });
  });

  it("a parallel burst from one device is counted exactly: each assessment sees every earlier one", async () => {
    const { api } = await setup();
    const fp = `fp-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 12 }, () => api.post("/v1/risk/assess", { deviceFingerprint: fp })));
    expect(answers.map((a) => a.body.signals.deviceEvents1h).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(answers.filter((a) => a.body.reasons.some((r: any) => r.code === "device_velocity")).length).toBe(7);
  });

  it("one device shared by 3 and then 5 people or accounts adds 40, then 60; accounts created with the device count", async () => {
    const { db, org, api } = await setup();
    const fp = `fp-${randomUUID()}`;
    const key = walletKey().publicKey;
    await db.account.create({
      data: {
        orgId: org.orgId,
        chain: "sandbox",
        name: `s${Date.now() % 1e9}`,
        did: `did:antelope:sandbox:s${Date.now() % 1e9}`,
        ownerPublicKey: key,
        activePublicKey: key,
        deviceFingerprintHash: sha256Hex(fp),
      },
    });
    expect((await api.post("/v1/risk/assess", { deviceFingerprint: fp, subjectRef: "person-a" })).body.signals.sharedDeviceSubjects).toBe(
      2,
    );
    const third = await api.post("/v1/risk/assess", { deviceFingerprint: fp, subjectRef: "person-b" });
    expect(third.body.signals.sharedDeviceSubjects).toBe(3);
    expect(third.body).toMatchObject({ decision: "review", reasons: [{ code: "shared_device", weight: 40 }] });
    await api.post("/v1/risk/assess", { deviceFingerprint: fp, subjectRef: "person-c" });
    const fifth = await api.post("/v1/risk/assess", { deviceFingerprint: fp, subjectRef: "person-d" });
    expect(fifth.body.signals.sharedDeviceSubjects).toBe(5);
    expect(fifth.body.reasons.find((r: any) => r.code === "shared_device").weight).toBe(60);
  });

  it("client IP and organization velocity are weak signals: they reach review at most; another organization's events never count", async () => {
    const { db, org, api } = await setup();
    await pastEvents(db, org.orgId, 100, { clientIp: "198.51.100.9" });
    const ip = await api.post("/v1/risk/assess", { ipAddress: "198.51.100.9" });
    // Organization-wide counts stop at the highest tier of their rule (60 a minute): "at least".
    expect(ip.body.signals).toMatchObject({ ipEvents1h: 100, orgEvents1m: 60 });
    expect(ip.body.reasons.map((r: any) => [r.code, r.weight])).toEqual([
      ["ip_velocity", 30],
      ["org_velocity", 20],
    ]);
    expect(ip.body.decision).toBe("review");
    // The same address and device in another organization start from zero.
    const other = await createTestOrg();
    const theirs = await client((await testServer()).url, other.apiKey).post("/v1/risk/assess", { ipAddress: "198.51.100.9" });
    expect(theirs.body).toMatchObject({ score: 0, decision: "allow" });
    expect(theirs.body.signals).toMatchObject({ ipEvents1h: 0, orgEvents1m: 0 });
  });

  it("counts an address's events, hashed or still in clear, through the address index, without reading the organization's other addresses' events", async () => {
    const { db, org, api } = await setup();
    const ip = "198.51.100.77";
    // Many end users' addresses, as a sign-up backend forwards them, then this address's rows in both forms.
    await pastEvents(db, org.orgId, 600, (i) => ({
      clientIpHash: clientIpHash(org.orgId, `203.0.113.${i % 250}`),
      clientIp: "203.0.113.0/24",
    }));
    await pastEvents(db, org.orgId, 3, { clientIpHash: clientIpHash(org.orgId, ip), clientIp: "198.51.100.0/24" });
    await pastEvents(db, org.orgId, 2, { clientIp: ip });
    await db.$executeRawUnsafe("ANALYZE risk_events");
    const res = await api.post("/v1/risk/assess", { ipAddress: ip });
    expect(res.body.signals.ipEvents1h).toBe(5);

    const plan = { orgId: org.orgId, deviceHash: null, legacyDeviceHash: null, ip, ipHash: clientIpHash(org.orgId, ip), now: new Date() };
    const { nodes: byAddress, plan: explained } = await indexNodes(
      db,
      Prisma.sql`SELECT ${riskCountColumns(plan as RiskPlan)}`,
      "risk_events_orgId_address_createdAt_idx",
    );
    expect(byAddress, explained).toHaveLength(1);
    // It read this address's five rows (one more assessment since: six), not the other 600.
    expect(byAddress[0]!["Actual Rows"]).toBe(6);
    expect(byAddress[0]!["Rows Removed by Filter"] ?? 0).toBe(0);
  });
  it("without ipAddress the caller's address is used; bad input is 400; the scope is accounts_write", async () => {
    const { db, org, api, url } = await setup();
    const res = await api.post("/v1/risk/assess", {});
    expect(res.body.signals.ipSource).toBe("caller");
    expect((await db.riskEvent.findUniqueOrThrow({ where: { id: res.body.assessmentId } })).clientIp).toBe("127.0.0.0/24");
    for (const body of [{ ipAddress: "999.1.1.1" }, { email: "not-an-email" }, { deviceFingerprint: "" }, { unknown: true }]) {
      expect((await api.post("/v1/risk/assess", body)).status, JSON.stringify(body)).toBe(400);
    }
    const reader = await extraKey(db, org.orgId, "reader", ["read", "bind_write"]);
    const refused = await client(url, reader.raw).post("/v1/risk/assess", {});
    expect([refused.status, refused.body.error.details.reason]).toEqual([403, "missing_scope"]);
  });
});

describe("risk before POST /v1/accounts/free", () => {
  it("a deny refuses with 403 risk_denied and writes no account, only the risk event; an allowed create names its assessment in the audit entry", async () => {
    const { db, org, api } = await setup();
    const fp = `fp-${randomUUID()}`;
    // One device used by five people within the hour: shared device (60) + device velocity (25).
    await pastEvents(db, org.orgId, 5, (i) => ({ deviceFingerprintHash: sha256Hex(fp), subjectRef: `person-${i}` }));
    const denied = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, deviceFingerprint: fp });
    expect(denied.status, denied.text).toBe(403);
    expect(denied.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "risk_denied", assessmentId: expect.any(String) } });
    expect(await db.account.count({ where: { orgId: org.orgId } })).toBe(0);
    expect(await db.riskEvent.findUniqueOrThrow({ where: { id: denied.body.error.details.assessmentId } })).toMatchObject({
      kind: "free_create",
      decision: "deny",
      score: 85,
    });

    const ok = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, deviceFingerprint: `fp-${randomUUID()}` });
    expect(ok.status, ok.text).toBe(201);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "account.created" } });
    const assessment = await db.riskEvent.findFirstOrThrow({ where: { orgId: org.orgId, kind: "free_create", decision: "allow" } });
    expect(audit.data).toMatchObject({ riskAssessmentId: assessment.id, riskDecision: "allow" });
  });
});

describe("what a risk event keeps", () => {
  const SIGNALS = [
    "deviceEvents1h",
    "deviceEvents24h",
    "disposableEmail",
    "ipEvents1h",
    "ipSource",
    "orgEvents1h",
    "orgEvents1m",
    "sharedDeviceSubjects",
  ];

  it("is the signals alone, for free create and bind confirm, whose reads hold the challenge and the person too; older rows are cut back to them", async () => {
    const { url, db, org, api } = await setup();
    await boundAccount(url, api);
    const events = await db.riskEvent.findMany({ where: { orgId: org.orgId } });
    expect(events.map((e) => e.kind).sort()).toEqual(["bind", "free_create"]);
    for (const e of events) expect(Object.keys((e.detail as any).signals).sort(), e.kind).toEqual(SIGNALS);

    // A row as the service wrote it before: the read's other columns among the signals.
    const polluted = await db.riskEvent.create({
      data: {
        orgId: org.orgId,
        kind: "bind",
        decision: "allow",
        detail: {
          reasons: [],
          signals: {
            ipEvents1h: 2,
            orgEvents1h: 5,
            nonce: { nonce: "n", payloadToSign: "text" },
            person: { country: "FR", sanctionsFlag: false },
          },
        },
      },
    });
    const sql = fs.readFileSync("prisma/migrations/20261129010000_risk_signals_only/migration.sql", "utf8");
    await db.$executeRawUnsafe(sql);
    const after = await db.riskEvent.findUniqueOrThrow({ where: { id: polluted.id } });
    expect(after.detail).toEqual({ reasons: [], signals: { ipEvents1h: 2, orgEvents1h: 5 } });
    // The rows already clean are left as they were.
    for (const e of events) expect((await db.riskEvent.findUniqueOrThrow({ where: { id: e.id } })).detail).toEqual(e.detail);
  });
});

describe("a busy organization's hour", () => {
  /** A service context of the organization whose clock reads `at()`, for moving it past an hour's end. */
  const contextAt = async ({ db, org }: Awaited<ReturnType<typeof setup>>, at: () => number): Promise<ServiceContext> => ({
    db,
    org: await db.organization.findUniqueOrThrow({ where: { id: org.orgId } }),
    actor: { type: "system", label: "risk-test" },
    correlationId: "busy-hour",
    clientIp: "198.51.100.40",
    log: logger(),
    now: () => new Date(at()),
  });

  it("is read once it reaches the cap, then counted at the cap without reading it (until the 1,000th newest event is an hour old)", async () => {
    const { db, org, api } = await setup();
    await pastEvents(db, org.orgId, 1000, {}, 30 * 60_000);
    const first = await api.post("/v1/risk/assess", { ipAddress: "198.51.100.31" });
    expect(first.body.signals.orgEvents1h).toBe(1000);
    await busyWindowReads();
    // Rows taken away behind the service's back (it never deletes them): a count read now would
    // find one; the hour known to be full answers the cap without reading.
    await db.riskEvent.deleteMany({ where: { orgId: org.orgId, kind: "manual" } });
    const second = await api.post("/v1/risk/assess", { ipAddress: "198.51.100.32" });
    expect(second.body.signals.orgEvents1h).toBe(1000);
    expect(second.body.reasons.map((r: any) => r.code)).toContain("org_velocity");
    // Another organization's hour is its own.
    const other = await createTestOrg();
    const theirs = await client((await testServer()).url, other.apiKey).post("/v1/risk/assess", { ipAddress: "198.51.100.33" });
    expect(theirs.body.signals.orgEvents1h).toBe(0);
  });

  it("is counted again once the 1,000th newest event it read is an hour old", async () => {
    const made = await setup();
    const { db, org } = made;
    const base = Date.now();
    let clock = base;
    const ctx = await contextAt(made, () => clock);
    // 1,000 events half an hour ago: the hour is full until about half an hour from now.
    await pastEvents(db, org.orgId, 1000, {}, 30 * 60_000);
    expect((await assessRisk(db, ctx, {}, "manual")).signals.orgEvents1h).toBe(1000);
    await busyWindowReads();
    await db.riskEvent.deleteMany({ where: { orgId: org.orgId, createdAt: { lt: new Date(base - 20 * 60_000) } } });
    // A minute before then, the cap stands without reading (a read would find the one event left).
    clock = base + 29 * 60_000;
    expect((await assessRisk(db, ctx, {}, "manual")).signals.orgEvents1h).toBe(1000);
    expect(busyOrganizations("hour")).toContain(org.orgId);
    // A minute after, the hour is read again: the two assessments of this test; the process no longer holds it.
    clock = base + 31 * 60_000;
    expect((await assessRisk(db, ctx, {}, "manual")).signals.orgEvents1h).toBe(2);
    expect(busyOrganizations("hour")).not.toContain(org.orgId);
  });

  it("is forgotten when another organization's hour is noted after it is over, though its organization never comes back", async () => {
    const base = Date.now();
    let clock = base;
    const quiet = await setup();
    const busy = await setup();
    await pastEvents(quiet.db, quiet.org.orgId, 1000, {}, 30 * 60_000);
    expect((await assessRisk(quiet.db, await contextAt(quiet, () => clock), {}, "manual")).signals.orgEvents1h).toBe(1000);
    await busyWindowReads();
    expect(busyOrganizations("hour")).toContain(quiet.org.orgId);
    // An hour later the first organization is silent; the second one's hour (by the service's clock) fills.
    clock = base + 61 * 60_000;
    await pastEvents(busy.db, busy.org.orgId, 1000, {}, -60 * 60_000);
    expect((await assessRisk(busy.db, await contextAt(busy, () => clock), {}, "manual")).signals.orgEvents1h).toBe(1000);
    await busyWindowReads();
    expect(busyOrganizations("hour")).toContain(busy.org.orgId);
    expect(busyOrganizations("hour")).not.toContain(quiet.org.orgId);
  });

  it("below the cap is counted every time", async () => {
    const { db, org, api } = await setup();
    await pastEvents(db, org.orgId, 998, {}, 30 * 60_000);
    expect((await api.post("/v1/risk/assess", {})).body.signals.orgEvents1h).toBe(998);
    await busyWindowReads();
    expect((await api.post("/v1/risk/assess", {})).body.signals.orgEvents1h).toBe(999);
  });

  it("and its minute: read once at the cap of 60, then counted at the cap until the 60th newest event is a minute old", async () => {
    const made = await setup();
    const { db, org } = made;
    const base = Date.now();
    let clock = base;
    const ctx = await contextAt(made, () => clock);
    // 60 events half a minute ago: the minute is full until about half a minute from now.
    await pastEvents(db, org.orgId, 60, {}, 30_000);
    const first = await assessRisk(db, ctx, {}, "manual");
    expect(first.signals.orgEvents1m).toBe(60);
    expect(first.reasons.map((r) => r.code)).toContain("org_velocity");
    await busyWindowReads();
    expect(busyOrganizations("minute")).toContain(org.orgId);
    expect(busyOrganizations("hour")).not.toContain(org.orgId);
    // Rows taken away behind the service's back (it never deletes them): a count read now would
    // find one; the minute known to be full answers the cap without reading.
    await db.riskEvent.deleteMany({ where: { orgId: org.orgId, kind: "manual", createdAt: { lt: new Date(base - 10_000) } } });
    clock = base + 29_000;
    expect((await assessRisk(db, ctx, {}, "manual")).signals.orgEvents1m).toBe(60);
    // Two seconds later the 60th newest event is a minute old: the minute is read again (the two
    // assessments of this test) and the process no longer holds it.
    clock = base + 31_000;
    expect((await assessRisk(db, ctx, {}, "manual")).signals.orgEvents1m).toBe(2);
    expect(busyOrganizations("minute")).not.toContain(org.orgId);
    // Below the cap it is counted every time.
    expect((await assessRisk(db, ctx, {}, "manual")).signals.orgEvents1m).toBe(3);
  });
});
