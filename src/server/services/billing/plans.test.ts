import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import type { Db } from "@/server/db/client";
import { PLANS } from "@/server/platform/plans";
import { startOfNextUtcMonth, startOfUtcMonth, takeVerification } from "@/server/platform/verification-allowance";
import { resetKycConfigCache } from "@/server/providers/kyc";
import { type FakeSumsub, startFakeSumsub } from "@/server/testing/fake-sumsub";
import { client, createTestOrg, testServer } from "@/server/testing/harness";

// Every line of GET /v1/billing/plans is true: every plan reaches every endpoint, and the monthly
// verification volume is metered, shown in usage, and enforced as the catalog states.

/** Arranges that `used` verifications were already taken this month (the meter's own row). */
async function alreadyUsed(db: Db, orgId: string, used: number) {
  await db.usageDay.upsert({
    where: { bucket_day: { bucket: `verifications:${orgId}`, day: startOfUtcMonth(new Date()) } },
    create: { bucket: `verifications:${orgId}`, day: startOfUtcMonth(new Date()), count: used },
    update: { count: used },
  });
}

describe("the plan catalog", () => {
  it("states for each plan its verifications, what happens at the cap, support and SLA, and says every plan reaches every endpoint", async () => {
    const { url } = await testServer();
    const res = await client(url).get("/v1/billing/plans");
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.plans.map((p: any) => [p.id, p]));
    expect(byId.builder).toMatchObject({ verificationsPerMonth: 100, sla: null, support: "Community support" });
    expect(byId.builder.atVerificationCap).toMatch(/refused until the 1st of next month \(UTC\); upgrading to Growth lifts the cap/);
    expect(byId.institutional.verificationsPerMonth).toBeNull();
    expect(byId.institutional.sla).toMatch(/99\.9%/);
    for (const p of res.body.plans) {
      expect(p.includes).toContain("Sanctions and PEP screening, the AML case queue and four-eyes clearing");
      expect(p.includes).toContain(`${p.limits.requestsPerMinute.toLocaleString("en-US")} requests a minute`);
    }
  });

  it("gives a Builder organization the features the catalog lists for every plan", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "builder" });
    const api = client(url, org.apiKey);
    const screened = await api.post("/v1/aml/screen-applicant", {
      applicantIdHash: "a".repeat(64),
      fullName: "Ada Lovelace",
      birthDate: "1815-12-10",
      country: "GB",
    });
    expect(screened.status, screened.text).toBe(200);
    expect((await api.get("/v1/aml/cases")).status).toBe(200);
    const hook = await api.post("/v1/admin/webhooks", { url: "https://8.8.8.8/bi", events: ["*"] });
    expect(hook.status, hook.text).toBe(201);
    const allow = await api.put("/v1/admin/ip-allowlist", { cidrs: ["0.0.0.0/0", "::/0"] });
    expect(allow.status, allow.text).toBe(200);
    const fourEyes = await api.patch("/v1/admin/tenant/policy", { requireSecondApprovalToClearAml: true });
    expect(fourEyes.status, fourEyes.text).toBe(200);
    const signing = await api.post("/v1/admin/signing/enable", {});
    expect(signing.status, signing.text).toBe(200);
  });
});

describe("the monthly verification allowance", () => {
  it("Builder: the 100th verification of the month starts, the 101st is refused with 429 until the 1st, and usage shows it", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "builder" });
    const api = client(url, org.apiKey);
    await alreadyUsed(db, org.orgId, 99);

    const last = await api.post("/v1/kyc/start", {});
    expect(last.status, last.text).toBe(200);
    const refused = await api.post("/v1/kyc/start", {});
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("RATE_LIMITED");
    const resetAt = startOfNextUtcMonth(new Date());
    expect(refused.body.error.details).toMatchObject({
      reason: "monthly_verifications_used",
      plan: "builder",
      verificationsPerMonth: 100,
      used: 100,
      resetAt: resetAt.toISOString(),
    });
    expect(refused.body.error.message).toContain(`new verifications open on ${resetAt.toISOString().slice(0, 10)}`);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Math.abs(retryAfter - (resetAt.getTime() - Date.now()) / 1000)).toBeLessThan(60);
    // Nothing was started for the refused call.
    expect(await db.kycSession.count({ where: { orgId: org.orgId } })).toBe(1);

    const usage = await api.get("/v1/billing/usage");
    expect(usage.body.meters).toMatchObject({ verificationsThisMonth: 100, verificationsRemaining: 0 });
  });

  it("parallel starts at the edge of the allowance take exactly what is left", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "builder" });
    const api = client(url, org.apiKey);
    await alreadyUsed(db, org.orgId, 97);
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.post("/v1/kyc/start", {})));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
    expect(await db.kycSession.count({ where: { orgId: org.orgId } })).toBe(3);
    expect((await api.get("/v1/billing/usage")).body.meters.verificationsThisMonth).toBe(100);
  });

  it("upgrading lifts the cap at once; Institutional counts without a cap", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "builder" });
    const api = client(url, org.apiKey);
    await alreadyUsed(db, org.orgId, 100);
    expect((await api.post("/v1/kyc/start", {})).status).toBe(429);
    await db.organization.update({ where: { id: org.orgId }, data: { plan: "growth" } });
    // The key cache learns of the change from the database's notification.
    await expect.poll(async () => (await api.post("/v1/kyc/start", {})).status, { timeout: 5000 }).toBe(200);
    expect((await api.get("/v1/billing/usage")).body.meters).toMatchObject({
      verificationsThisMonth: 101,
      verificationsRemaining: PLANS.growth.verificationsPerMonth! - 101,
    });

    const big = await createTestOrg({ plan: "institutional" });
    await alreadyUsed(db, big.orgId, 1_000_000);
    expect(await takeVerification(db, big.orgId, null, new Date())).toEqual({ taken: true, used: 1_000_001 });
    expect((await client(url, big.apiKey).get("/v1/billing/usage")).body.meters.verificationsRemaining).toBeNull();
  });

  it("counts the verifications an organization started this month before its meter existed", async () => {
    const { db } = await testServer();
    const org = await createTestOrg({ plan: "builder" });
    const person = await db.person.create({ data: { orgId: org.orgId } });
    const session = { orgId: org.orgId, personId: person.id, provider: "sandbox", level: "basic-kyc", verificationUrl: "x" };
    const expiresAt = new Date(Date.now() + 3600_000);
    await db.kycSession.createMany({
      data: [
        { ...session, expiresAt },
        { ...session, expiresAt },
        // Last month's does not count.
        { ...session, expiresAt, createdAt: new Date(startOfUtcMonth(new Date()).getTime() - 1000) },
      ],
    });
    expect(await takeVerification(db, org.orgId, 100, new Date())).toEqual({ taken: true, used: 3 });
  });

  describe("when the provider fails", () => {
    let sumsub: FakeSumsub;
    const saved = { ...process.env };
    beforeAll(async () => {
      sumsub = await startFakeSumsub();
    });
    afterAll(() => sumsub.close());
    afterEach(() => {
      process.env = { ...saved };
      resetEnvCache();
      resetKycConfigCache();
    });

    it("the verification is given back: a failed start does not use the allowance", async () => {
      const { url, db } = await testServer();
      const org = await createTestOrg({ plan: "builder" });
      const api = client(url, org.apiKey);
      await alreadyUsed(db, org.orgId, 99);
      Object.assign(process.env, {
        KYC_PROVIDERS: "sumsub",
        SUMSUB_APP_TOKEN: sumsub.appToken,
        SUMSUB_SECRET_KEY: "not-the-secret",
        SUMSUB_WEBHOOK_SECRET: sumsub.webhookSecret,
        SUMSUB_API_URL: sumsub.url,
        KYC_RETRY_ATTEMPTS: "1",
        KYC_RETRY_BASE_MS: "5",
      });
      resetEnvCache();
      resetKycConfigCache();
      const failed = await api.post("/v1/kyc/start", {});
      expect(failed.status, failed.text).toBe(502);
      expect((await api.get("/v1/billing/usage")).body.meters.verificationsThisMonth).toBe(99);
    });
  });
});
