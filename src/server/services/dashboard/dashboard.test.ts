import { describe, expect, it } from "vitest";
import { extraKey, flaggedPerson, serviceCtx } from "@/server/testing/aml";
import { walletKey } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { dashboard } from "./dashboard";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

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

  it("leaves AML work out of the recent activity a console viewer reads, and shows it to a compliance officer", async () => {
    const { db, org, api } = await setup();
    const pend = await flaggedPerson(db, org.orgId, { pep: true });
    expect((await api.post("/v1/aml/clear", { subjectDid: pend.person.did, reason: "namesake" })).status).toBe(200);
    const read = async (role: string) =>
      (await dashboard(await serviceCtx(db, org.orgId, { type: "member", email: `${role}@example.com`, role }))).recentAudit.map(
        (e) => e.action,
      );
    expect(await read("compliance_officer")).toEqual(expect.arrayContaining(["aml.cleared"]));
    expect((await read("viewer")).filter((a) => a.startsWith("aml."))).toEqual([]);
  });
});
