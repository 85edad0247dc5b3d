import { describe, expect, it } from "vitest";
import { sha256Hex } from "@/server/crypto/hash";
import { keyedDeviceHash } from "@/server/crypto/risk-hash";
import { flaggedPerson, person } from "@/server/testing/aml";
import { walletKey } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { plansOf, rowsRead } from "@/server/testing/query-plan";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

describe("GET /v1/admin/aml", () => {
  it("shows flagged people (sanctions first) with their open case, the queue and recent AML audit entries", async () => {
    const { db, org, api } = await setup();
    const pep = await flaggedPerson(db, org.orgId, { pep: true });
    const sanctions = await flaggedPerson(db, org.orgId, { sanctions: true, pep: false, severity: "critical", score: 99 });
    const cleared = await flaggedPerson(db, org.orgId);
    await api.post("/v1/aml/clear", { subjectDid: cleared.person.did, reason: "namesake" });
    await person(db, org.orgId);

    const res = await api.get("/v1/admin/aml");
    expect(res.status, res.text).toBe(200);
    expect(res.body.counts).toEqual({ flaggedPeople: 2, sanctionsFlagged: 1, pepFlagged: 1, openCases: 2, pendingApproval: 0, overdue: 0 });
    expect(res.body.alerts.map((a: any) => [a.personDid, a.openCase?.caseId, a.openCase?.priority])).toEqual([
      [sanctions.person.did, sanctions.caseId, "critical"],
      [pep.person.did, pep.caseId, "high"],
    ]);
    expect(res.body.openCases.map((c: any) => c.caseId)).toEqual([sanctions.caseId, pep.caseId]);
    expect(res.body.recentEvents[0]).toMatchObject({ action: "aml.cleared", subject: cleared.person.did });
    expect(res.body.recentEvents.every((e: any) => e.action.startsWith("aml."))).toBe(true);
    expect(res.body.recentEvents.filter((e: any) => e.action === "aml.sanctions_hit")).toHaveLength(3);
  });
});

describe("GET /v1/admin/risk", () => {
  it("reports velocity windows, decisions, devices shared between subjects and recent events", async () => {
    const { db, org, api } = await setup();
    const shared = "fp-shared-by-three";
    for (const s of ["p1", "p2", "p3"])
      await api.post("/v1/risk/assess", { deviceFingerprint: shared, subjectRef: s, ipAddress: "192.0.2.10" });
    await api.post("/v1/risk/assess", { email: "x@mailinator.com" });
    await db.riskEvent.create({
      data: { orgId: org.orgId, kind: "manual", decision: "deny", score: 90, createdAt: new Date(Date.now() - 2 * 86_400_000) },
    });
    const key = walletKey().publicKey;
    await db.account.create({
      data: {
        orgId: org.orgId,
        chain: "sandbox",
        name: "riskshared1",
        did: `did:antelope:sandbox:riskshared1-${org.orgId.slice(0, 4)}`,
        ownerPublicKey: key,
        activePublicKey: key,
        deviceFingerprintHash: sha256Hex("fp-two-accounts"),
      },
    });
    await db.account.create({
      data: {
        orgId: org.orgId,
        chain: "sandbox",
        name: "riskshared2",
        did: `did:antelope:sandbox:riskshared2-${org.orgId.slice(0, 4)}`,
        ownerPublicKey: key,
        activePublicKey: key,
        deviceFingerprintHash: sha256Hex("fp-two-accounts"),
      },
    });

    const res = await api.get("/v1/admin/risk");
    expect(res.status, res.text).toBe(200);
    expect(res.body.velocity).toMatchObject({ events1m: 4, events1h: 4, events24h: 4, decisions24h: { allow: 2, review: 2, deny: 0 } });
    expect(res.body.velocity.topDevices1h).toEqual([{ deviceHash: keyedDeviceHash(sha256Hex(shared)).slice(3, 19), events: 3 }]);
    expect(res.body.velocity.topIps1h[0]).toEqual({ clientIp: "192.0.2.0/24", events: 3 });
    expect(res.body.sharedDevices.map((d: any) => [d.deviceHash, d.subjects])).toEqual([
      // Shown without the keyed form's "k1:"; accounts written before the keyed hashes hold the plain SHA-256.
      [keyedDeviceHash(sha256Hex(shared)).slice(3, 19), 3],
      [sha256Hex("fp-two-accounts").slice(0, 16), 2],
    ]);
    expect(res.body.recentEvents).toHaveLength(5);
    expect(res.body.recentEvents.slice(0, 2)).toMatchObject([
      { decision: "review", reasons: ["disposable_email"] },
      { decision: "review", reasons: ["shared_device"], subjectRef: "p3", clientIp: "192.0.2.0/24" },
    ]);
    // An event written before with the address in clear is shown as its network too.
    await db.riskEvent.create({ data: { orgId: org.orgId, kind: "manual", decision: "allow", clientIp: "198.51.100.200" } });
    expect((await api.get("/v1/admin/risk")).body.recentEvents[0].clientIp).toBe("198.51.100.0/24");
  });
});

describe("GET /v1/admin/aml as the organization grows", () => {
  it("reads the flagged people and the AML entries, not every person and the whole audit log", async () => {
    const { db, org, api } = await setup();
    const flagged = await flaggedPerson(db, org.orgId, { pep: true });
    await db.$executeRawUnsafe("ANALYZE people");
    await db.$executeRawUnsafe("ANALYZE audit_entries");
    // 3,000 people nobody flagged, and 3,000 later audit entries of other kinds (their bytes as an append writes them; the chain is not checked here).
    await db.$executeRaw`
      INSERT INTO people (id, "orgId", "kycStatus", "updatedAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, 'approved'::"KycStatus", now() FROM generate_series(1, 3000)`;
    await db.$executeRaw`
      INSERT INTO audit_entries (id, canonical, hash)
      SELECT gen_random_uuid(),
             '{"action":"account.created","actor":"system:test","createdAt":"2026-11-29T08:00:00.000Z","data":{},"orgId":"' || ${org.orgId} ||
             '","prevHash":"x","seq":' || (1000000 + g) || ',"subject":null,"subjectType":null}', md5(g::text)
      FROM generate_series(1, 3000) AS g`;
    let body: { counts?: { flaggedPeople: number }; recentAudit?: unknown[] } = {};
    const plans = await plansOf(async () => {
      const res = await api.get("/v1/admin/aml");
      expect(res.status, res.text).toBe(200);
      body = res.body;
    });
    expect(body.counts?.flaggedPeople).toBe(1);
    expect(flagged.person.id).toBeTruthy();
    const people = plans.reduce((n, p) => n + rowsRead(p.nodes, "people"), 0);
    const audit = plans.reduce((n, p) => n + rowsRead(p.nodes, "audit_entries"), 0);
    const all = plans.map((p) => p.plan).join("\n");
    expect(people, all).toBeLessThanOrEqual(10);
    expect(audit, all).toBeLessThanOrEqual(50);
  });
});
