import { describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { hitWindow } from "../../platform/rate-limit";
import { fromIp, trustLoopbackProxy } from "../../testing/billing";
import { client, createTestOrg, testServer } from "../../testing/harness";

process.env.SANDBOX_CHAIN_FINALITY_SEC = "0";
resetEnvCache();
trustLoopbackProxy();

describe("usage", () => {
  it("shows the plan from the catalog and the organization's meters", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    await db.account.create({
      data: {
        orgId: org.orgId,
        chain: "sandbox",
        name: `u${Date.now().toString(36)}`.slice(0, 12),
        did: `did:antelope:sandbox:u${Date.now()}`,
        ownerPublicKey: "PUB_K1_x",
        activePublicKey: "PUB_K1_x",
      },
    });
    for (let i = 0; i < 3; i++) expect((await api.get("/v1/tenant")).status).toBe(200);
    // The plan quota may reach the shared windows in batches (every 250 ms).
    await new Promise((r) => setTimeout(r, 600));
    const res = await api.get("/v1/billing/usage");
    expect(res.status, res.text).toBe(200);
    expect(res.body.plan).toEqual({ id: "builder", name: "Builder", limits: { requestsPerMinute: 120 }, verificationsPerMonth: 100 });
    expect(res.body.meters).toMatchObject({ accounts: 1, verificationsThisMonth: 0 });
    expect(res.body.meters.requestsToday).toBeGreaterThanOrEqual(3);
    expect(res.body.meters.requestsThisMinute).toBeGreaterThanOrEqual(0);
    // Another organization's accounts are not counted.
    const other = await client(url, (await createTestOrg()).apiKey).get("/v1/billing/usage");
    expect(other.body.meters.accounts).toBe(0);
  });
});

describe("daily request meter", () => {
  it("adds every increase of an organization's plan window to its day, and ignores other buckets", async () => {
    const { db } = await testServer();
    const org = await createTestOrg();
    const at = new Date(Date.UTC(2026, 0, 15, 10, 30));
    for (let i = 0; i < 3; i++) await hitWindow(db, `plan:${org.orgId}`, 120, 60, at);
    await hitWindow(db, `plan:${org.orgId}`, 120, 60, new Date(at.getTime() + 60_000));
    await hitWindow(db, `ip:203.0.113.7`, 6000, 60, at);
    const day = await db.usageDay.findUnique({
      where: { bucket_day: { bucket: `plan:${org.orgId}`, day: new Date(Date.UTC(2026, 0, 15)) } },
    });
    expect(day?.count).toBe(4);
    expect(await db.usageDay.count({ where: { bucket: "ip:203.0.113.7" } })).toBe(0);
  });
});

describe("upgrade", () => {
  it("Builder → Growth keeps the organization and its key, and the next answer carries the Growth quota", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const before = await api.get("/v1/tenant");
    expect(before.headers.get("x-ratelimit-plan-limit")).toBe("120");

    const up = await api.post("/v1/billing/upgrade");
    expect(up.status, up.text).toBe(200);
    expect(up.body).toMatchObject({ status: "awaiting_payment", plan: "growth", checkoutUrl: expect.stringContaining(up.body.sessionId) });
    const done = await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: up.body.sessionId });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ upgraded: true, organizationId: org.orgId, revealAvailable: false });

    const next = await api.get("/v1/tenant");
    expect(next.status).toBe(200);
    expect(next.body.organizationId).toBe(org.orgId);
    expect(next.headers.get("x-ratelimit-plan-limit")).toBe("600");
    expect(Number(next.headers.get("x-ratelimit-plan-remaining"))).toBeGreaterThan(120);
    expect(await db.apiKey.count({ where: { orgId: org.orgId } })).toBe(1);
    const actions = (await db.auditEntry.findMany({ where: { orgId: org.orgId }, orderBy: { seq: "asc" } })).map((e) => e.action);
    expect(actions).toEqual(["organization.created", "billing.upgrade_started", "billing.checkout_settled"]);
    const reveal = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: up.body.sessionId, emailProofToken: "ept_none" });
    expect(reveal.status).toBe(409);
    expect(reveal.body.error.details.reason).toBe("nothing_to_reveal");

    const again = await api.post("/v1/billing/upgrade");
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe("plan_not_upgradable");
  });

  it("hands out one pending upgrade checkout, even to concurrent calls, so Growth is never paid twice", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const all = await Promise.all(Array.from({ length: 5 }, () => api.post("/v1/billing/upgrade")));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(all.map((r) => r.body.sessionId)).size).toBe(1);
    expect(new Set(all.map((r) => r.body.checkoutUrl)).size).toBe(1);
    expect(await db.checkoutSession.count({ where: { orgId: org.orgId, purpose: "upgrade" } })).toBe(1);
    const later = await api.post("/v1/billing/upgrade");
    expect(later.body.sessionId).toBe(all[0]!.body.sessionId);
  });

  it("can be paid on chain: 201 without a new key, the plan changes", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const up = await api.post("/v1/billing/upgrade");
    const t = await api.post("/v1/sandbox/chain/transfer", {
      from: "payer.bi",
      to: up.body.chainPayment.treasury,
      quantity: up.body.chainPayment.amount,
      memo: up.body.chainPayment.memo,
    });
    expect(t.status, t.text).toBe(200);
    const confirm = { sessionId: up.body.sessionId, transactionId: t.body.transactionId };
    // An upgrade was started with the organization's key, not an email proof: any proof given is not its own.
    const proofed = await fromIp(url).post("/v1/billing/chain/confirm", { ...confirm, emailProofToken: "ept_none" });
    expect(proofed.status).toBe(403);
    expect(proofed.body.error.details.reason).toBe("checkout_proof_mismatch");
    expect((await db.organization.findUnique({ where: { id: org.orgId } }))!.plan).toBe("builder");
    const ok = await fromIp(url).post("/v1/billing/chain/confirm", confirm);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ upgraded: true, organizationId: org.orgId, revealAvailable: false });
    expect(ok.body.apiKey).toBeUndefined();
    expect((await db.organization.findUnique({ where: { id: org.orgId } }))!.plan).toBe("growth");
    expect((await api.get("/v1/tenant")).headers.get("x-ratelimit-plan-limit")).toBe("600");
  });

  it("opens the sandbox portal when no payment provider is configured", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).post("/v1/billing/portal");
    expect(res.status).toBe(200);
    expect(res.body.url).toContain("/billing/sandbox-portal?customer=");
  });
});
