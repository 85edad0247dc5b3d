import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/server/crypto/hash";
import { extraKey, flaggedPerson, person } from "../src/server/testing/aml";
import { walletKey } from "../src/server/testing/factories";
import { client, createTestOrg, testServer } from "../src/server/testing/harness";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

describe("GET /v1/admin/people", () => {
  it("lists the organization's people newest first with KYC status, flags and risk score; filters and pages like accounts", async () => {
    const { db, org, api } = await setup();
    const other = await createTestOrg();
    await person(db, other.orgId, { pepFlag: true });
    const made = [];
    for (let i = 0; i < 5; i++) {
      const p = await person(db, org.orgId, i === 1 ? { sanctionsFlag: true, riskScore: 90 } : {});
      await db.person.update({
        where: { id: p.id },
        data: { createdAt: new Date(Date.now() - (5 - i) * 1000), kycStatus: i === 4 ? "pending" : "approved" },
      });
      made.push(p);
    }
    const all = await api.get("/v1/admin/people");
    expect(all.status, all.text).toBe(200);
    expect(all.body.people.map((p: any) => p.personDid)).toEqual(made.map((p) => p.did).reverse());
    expect(all.body.people[3]).toMatchObject({ kycStatus: "approved", sanctionsFlag: true, pepFlag: false, riskScore: 90, country: "GH" });
    expect(all.body.nextBefore).toBeNull();

    const page1 = await api.get("/v1/admin/people?limit=2");
    expect(page1.body.people.map((p: any) => p.personDid)).toEqual([made[4]!.did, made[3]!.did]);
    const page2 = await api.get(`/v1/admin/people?limit=2&before=${encodeURIComponent(page1.body.nextBefore)}`);
    expect(page2.body.people.map((p: any) => p.personDid)).toEqual([made[2]!.did, made[1]!.did]);

    expect((await api.get("/v1/admin/people?flagged=true")).body.people.map((p: any) => p.personDid)).toEqual([made[1]!.did]);
    expect((await api.get("/v1/admin/people?kycStatus=pending")).body.people.map((p: any) => p.personDid)).toEqual([made[4]!.did]);
    expect((await api.get("/v1/admin/people?limit=0")).status).toBe(400);
    expect((await api.get("/v1/admin/people?kycStatus=bogus")).status).toBe(400);
  });
});

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
    expect(res.body.velocity.topDevices1h).toEqual([{ deviceHash: sha256Hex(shared).slice(0, 16), events: 3 }]);
    expect(res.body.velocity.topIps1h[0]).toEqual({ clientIp: "192.0.2.10", events: 3 });
    expect(res.body.sharedDevices.map((d: any) => [d.deviceHash, d.subjects])).toEqual([
      [sha256Hex(shared).slice(0, 16), 3],
      [sha256Hex("fp-two-accounts").slice(0, 16), 2],
    ]);
    expect(res.body.recentEvents).toHaveLength(5);
    expect(res.body.recentEvents.slice(0, 2)).toMatchObject([
      { decision: "review", reasons: ["disposable_email"] },
      { decision: "review", reasons: ["shared_device"], subjectRef: "p3", clientIp: "192.0.2.10" },
    ]);
  });
});

describe("GET /v1/admin/dashboard", () => {
  it("counts accounts by lifecycle, people by KYC status, open cases by priority and risk decisions, with recent audit entries", async () => {
    const { db, org, api, url } = await setup();
    for (let i = 0; i < 2; i++) expect((await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey })).status).toBe(201);
    const acc = await db.account.findFirstOrThrow({ where: { orgId: org.orgId } });
    await api.post("/v1/admin/accounts/suspend", { accountDid: acc.did });
    await flaggedPerson(db, org.orgId, { sanctions: true, severity: "critical" });
    await flaggedPerson(db, org.orgId, { pep: true });
    await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
    const pend = await flaggedPerson(db, org.orgId, { pep: true });
    await api.post("/v1/aml/clear", { subjectDid: pend.person.did, reason: "namesake" });
    await db.person.create({ data: { orgId: org.orgId, kycStatus: "rejected" } });

    const res = await api.get("/v1/admin/dashboard");
    expect(res.status, res.text).toBe(200);
    expect(res.body.accounts).toEqual({ total: 2, byLifecycle: { provisional: 1, bound: 0, unlocked: 0, suspended: 1 } });
    expect(res.body.people).toEqual({
      total: 4,
      flagged: 3,
      byKycStatus: { not_started: 0, pending: 0, in_review: 0, approved: 3, rejected: 1, retry: 0 },
    });
    expect(res.body.amlCases).toEqual({
      open: { low: 0, medium: 0, high: 1, critical: 1 },
      pendingApproval: { low: 0, medium: 0, high: 1, critical: 0 },
      overdue: 0,
    });
    expect(res.body.risk24h).toEqual({ allow: 2, review: 0, deny: 0 });
    expect(res.body.recentAudit[0]).toMatchObject({ action: "aml.clear_proposed" });
    expect(res.body.recentAudit.length).toBeLessThanOrEqual(20);

    // Admin reads need the admin scope.
    const officer = await extraKey(db, org.orgId, "officer", ["compliance_export", "read"]);
    for (const path of ["/v1/admin/dashboard", "/v1/admin/aml", "/v1/admin/risk", "/v1/admin/people"]) {
      expect((await client(url, officer.raw).get(path)).status, path).toBe(403);
    }
  });
});
