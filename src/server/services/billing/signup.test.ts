import { describe, expect, it } from "vitest";
import { PLANS } from "../../platform/plans";
import { emailProof, fromIp, randomIp, trustLoopbackProxy, workAddress } from "../../testing/billing";
import { client, testServer } from "../../testing/harness";

trustLoopbackProxy();

const builder = (token: string, name = "Builder Co") => ({ emailProofToken: token, plan: "builder", organizationName: name });

describe("plans", () => {
  it("lists Builder, Growth and Institutional from the one catalog the plan quota enforces", async () => {
    const { url } = await testServer();
    const res = await client(url).get("/v1/billing/plans");
    expect(res.status).toBe(200);
    expect(res.body.plans.map((p: any) => [p.id, p.limits.requestsPerMinute])).toEqual([
      ["builder", 120],
      ["growth", 600],
      ["institutional", 3000],
    ]);
    for (const p of res.body.plans) {
      expect(p.priceUsdMonthly).toBe(PLANS[p.id as keyof typeof PLANS].priceUsdMonthly);
      expect(p.includes.length).toBeGreaterThan(2);
    }
  });
});

describe("advisor over HTTP", () => {
  it("recommends a plan from the catalog with its reasons (no model configured: the rules' text)", async () => {
    const { url } = await testServer();
    const res = await fromIp(url).post("/v1/billing/ai/advise", {
      question: "We onboard about 3,000 users a month",
      expectedMonthlyVerifications: 3000,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ recommendedPlan: { id: "growth", limits: { requestsPerMinute: 600 } }, source: "rules" });
    expect(res.body.reasons[0]).toContain("Builder includes 100 verifications a month");
    const bad = await fromIp(url).post("/v1/billing/ai/advise", { question: "", expectedMonthlyVerifications: -1 });
    expect(bad.status).toBe(400);
  });
});

describe("email proof", () => {
  it("sends a code to a work address, masks it, and trades the code for a single-use proof", async () => {
    const { url, db } = await testServer();
    const api = fromIp(url);
    const email = workAddress("Mixed.Case");
    const start = await api.post("/v1/billing/email/otp/start", { email });
    expect(start.status).toBe(200);
    expect(start.body.emailMasked).toMatch(/^m\*\*\*@acme-/);
    expect(start.body.devCode).toMatch(/^\d{6}$/);
    const row = (await db.otpChallenge.findUnique({ where: { id: start.body.challengeId } }))!;
    expect(row).toMatchObject({ orgId: null, purpose: "billing_signup", address: email.toLowerCase() });
    const wrong = await api.post("/v1/billing/email/otp/confirm", {
      challengeId: start.body.challengeId,
      code: start.body.devCode === "000000" ? "111111" : "000000",
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe("INVALID_CODE");
    const ok = await api.post("/v1/billing/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ expiresInSec: 900, emailProofToken: expect.stringMatching(/^ept_/) });
  });

  it("refuses consumer and disposable mailboxes", async () => {
    const { url } = await testServer();
    for (const email of ["someone@gmail.com", "someone@mailinator.com"]) {
      const res = await fromIp(url).post("/v1/billing/email/otp/start", { email });
      expect(res.status).toBe(400);
      expect(res.body.error.details.reason).toBe("work_email_required");
      expect(res.text).not.toContain("someone");
    }
  });
});

describe("Builder checkout", () => {
  it("provisions at once: a working bi_test_ key and console password, shown once, audited in the new organization", async () => {
    const { url, db } = await testServer();
    const proof = await emailProof(url);
    const res = await fromIp(url).post("/v1/billing/checkout", builder(proof.token, "Acme Builders"));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      status: "provisioned",
      plan: "builder",
      apiKey: expect.stringMatching(/^bi_test_/),
      consolePassword: expect.any(String),
    });

    const tenant = await client(url, res.body.apiKey).get("/v1/tenant");
    expect(tenant.status).toBe(200);
    expect(tenant.body.organizationId).toBe(res.body.organizationId);
    expect(tenant.headers.get("x-ratelimit-plan-limit")).toBe("120");

    const org = (await db.organization.findUnique({ where: { id: res.body.organizationId } }))!;
    expect(org).toMatchObject({ name: "Acme Builders", plan: "builder", contactEmail: proof.email });
    const actions = (await db.auditEntry.findMany({ where: { orgId: org.id }, orderBy: { seq: "asc" } })).map((e) => e.action);
    expect(actions).toEqual(["organization.created", "billing.checkout_settled"]);

    const session = (await db.checkoutSession.findUnique({ where: { id: res.body.sessionId } }))!;
    expect(session.revealPayloadEnc).toBeNull();
    expect(JSON.stringify(session)).not.toContain(res.body.apiKey);
    const poll = await fromIp(url).get(`/v1/billing/checkout/${res.body.sessionId}`);
    expect(poll.status).toBe(200);
    expect(poll.body).toMatchObject({ status: "provisioned", plan: "builder", revealAvailable: false, organizationId: org.id });
    expect(poll.text).not.toContain(res.body.apiKey);
    expect(poll.text).not.toContain(proof.email);
    const reveal = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: res.body.sessionId, emailProofToken: proof.token });
    expect(reveal.status).toBe(409);
    expect(reveal.body.error.details.reason).toBe("already_revealed");
  });

  it("refuses a proof token used once already, and an unknown one, with 403 email_not_verified", async () => {
    const { url } = await testServer();
    const proof = await emailProof(url);
    expect((await fromIp(url).post("/v1/billing/checkout", builder(proof.token))).status).toBe(201);
    for (const token of [proof.token, "ept_not-a-real-token"]) {
      const again = await fromIp(url).post("/v1/billing/checkout", builder(token));
      expect(again.status).toBe(403);
      expect(again.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "email_not_verified" } });
    }
  });

  it("20 parallel checkouts with one proof token provision exactly one organization", async () => {
    const { url, db } = await testServer();
    const proof = await emailProof(url);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fromIp(url).post("/v1/billing/checkout", builder(proof.token), { headers: { "idempotency-key": `parallel-${i}` } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(19);
    expect(await db.organization.count({ where: { contactEmail: proof.email } })).toBe(1);
    expect(await db.checkoutSession.count({ where: { email: proof.email } })).toBe(1);
  });

  it("replays a retried checkout with the same Idempotency-Key, scoped by the email proof", async () => {
    const { url, db } = await testServer();
    const a = await emailProof(url);
    const b = await emailProof(url);
    const key = { headers: { "idempotency-key": "signup-retry-1" } };
    const first = await fromIp(url).post("/v1/billing/checkout", builder(a.token), key);
    const retry = await fromIp(url).post("/v1/billing/checkout", builder(a.token), key);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.organizationId).toBe(first.body.organizationId);
    // Another prospect choosing the same key is a different operation, not a replay or a 422.
    const other = await fromIp(url).post("/v1/billing/checkout", builder(b.token), key);
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(other.body.organizationId).not.toBe(first.body.organizationId);
    expect(await db.organization.count({ where: { contactEmail: { in: [a.email, b.email] } } })).toBe(2);
    const stored = await db.idempotencyRecord.findMany({ where: { key: "signup-retry-1" } });
    expect(stored).toHaveLength(2);
    for (const r of stored) expect(r.responseBody).not.toContain(first.body.apiKey);
  });
});

describe("Institutional checkout", () => {
  it("stores a sales lead and provisions nothing", async () => {
    const { url, db } = await testServer();
    const proof = await emailProof(url);
    const res = await fromIp(url).post("/v1/billing/checkout", {
      emailProofToken: proof.token,
      plan: "institutional",
      organizationName: "Big Bank",
      expectedMonthlyVerifications: 250000,
      message: "Need an SLA",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sessionId: expect.any(String), status: "sales_lead", plan: "institutional" });
    const lead = (await db.salesLead.findUnique({ where: { sessionId: res.body.sessionId } }))!;
    expect(lead).toMatchObject({ email: proof.email, organizationName: "Big Bank", expectedMonthlyVerifications: 250000 });
    expect(await db.organization.count({ where: { contactEmail: proof.email } })).toBe(0);
  });
});

describe("per-IP billing limit", () => {
  it("answers the 11th public billing call in a minute from one address with 429 and Retry-After; another address is unaffected", async () => {
    const { url } = await testServer();
    const ip = randomIp();
    const advise = () => fromIp(url, ip).post("/v1/billing/ai/advise", { question: "Which plan fits 50 verifications?" });
    // Calls at a minute boundary would split across two windows: start just after one begins.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    for (let i = 0; i < 10; i++) expect((await advise()).status).toBe(200);
    const eleventh = await advise();
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.error.code).toBe("RATE_LIMITED");
    expect(Number(eleventh.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(eleventh.body.error.details.retryAfterSec).toBeGreaterThan(0);
    expect(eleventh.body.error.correlationId).toBe(eleventh.headers.get("x-correlation-id"));
    const otp = await fromIp(url, ip).post("/v1/billing/email/otp/start", { email: workAddress() });
    expect(otp.status).toBe(429);
    const elsewhere = await fromIp(url).post("/v1/billing/ai/advise", { question: "Which plan?" });
    expect(elsewhere.status).toBe(200);
  }, 40_000);
});
