import { describe, expect, it } from "vitest";
import { fromIp, growthCheckout, trustLoopbackProxy } from "../../testing/billing";
import { client, testServer } from "../../testing/harness";

trustLoopbackProxy();

describe("Growth checkout settled in the sandbox", () => {
  it("awaits payment, settles once, reveals the key once, and the status poll never carries it", async () => {
    const { url, db } = await testServer();
    const co = await growthCheckout(url);
    expect(co.checkoutUrl).toContain(co.sessionId);
    expect(co.chainPayment).toMatchObject({ treasury: "treasury.bi", amount: "499.0000 EOS", memo: expect.stringMatching(/^bi-/) });

    const pending = await fromIp(url).get(`/v1/billing/checkout/${co.sessionId}`);
    expect(pending.body).toMatchObject({ status: "awaiting_payment", plan: "growth", revealAvailable: false, organizationId: null });
    const proof = { sessionId: co.sessionId, emailProofToken: co.emailProofToken };
    const early = await fromIp(url).post("/v1/billing/checkout/reveal", proof);
    expect(early.status).toBe(409);
    expect(early.body.error.details.reason).toBe("not_provisioned");

    const done = await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: "provisioned", plan: "growth", upgraded: false, revealAvailable: true });
    expect(done.text).not.toMatch(/bi_test_/);
    const again = await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId });
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe("already_provisioned");

    const sealed = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    expect(sealed.revealPayloadEnc).toMatch(/^v1\./);
    const poll = await fromIp(url).get(`/v1/billing/checkout/${co.sessionId}`);
    expect(poll.body).toMatchObject({ status: "provisioned", revealAvailable: true, organizationId: done.body.organizationId });
    expect(poll.text).not.toMatch(/bi_test_|apiKey|consolePassword/);

    const reveal = await fromIp(url).post("/v1/billing/checkout/reveal", proof);
    expect(reveal.status, reveal.text).toBe(200);
    expect(reveal.body).toMatchObject({
      organizationId: done.body.organizationId,
      apiKey: expect.stringMatching(/^bi_test_/),
      consolePassword: expect.any(String),
    });
    const second = await fromIp(url).post("/v1/billing/checkout/reveal", proof);
    expect(second.status).toBe(409);
    expect(second.body.error.details.reason).toBe("already_revealed");
    expect(second.text).not.toContain(reveal.body.apiKey);

    const erased = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    expect(erased.revealPayloadEnc).toBeNull();
    expect(erased.revealedAt).not.toBeNull();
    const tenant = await client(url, reveal.body.apiKey).get("/v1/tenant");
    expect(tenant.status).toBe(200);
    expect(tenant.headers.get("x-ratelimit-plan-limit")).toBe("600");
    const actions = (await db.auditEntry.findMany({ where: { orgId: done.body.organizationId }, orderBy: { seq: "asc" } })).map(
      (e) => e.action,
    );
    expect(actions).toEqual(["organization.created", "billing.checkout_settled", "billing.keys_revealed"]);
  });

  it("reveals with the session id alone, as the contract asks, in the 15 minutes after payment, and audits it", async () => {
    const { url, db } = await testServer();
    const co = await growthCheckout(url);
    const done = await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId });
    expect(done.status).toBe(200);
    const reveal = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId });
    expect(reveal.status, reveal.text).toBe(200);
    expect(reveal.body).toMatchObject({
      sessionId: co.sessionId,
      organizationId: done.body.organizationId,
      apiKey: expect.stringMatching(/^bi_test_/),
    });
    expect((await client(url, reveal.body.apiKey).get("/v1/tenant")).status).toBe(200);
    const again = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId });
    expect([again.status, again.body.error.details.reason]).toEqual([409, "already_revealed"]);
    const entry = await db.auditEntry.findFirstOrThrow({ where: { orgId: done.body.organizationId, action: "billing.keys_revealed" } });
    expect(entry.data).toMatchObject({ via: "reveal", withEmailProof: false });
  });

  it("after the window needs the checkout's own email proof; a wrong proof is 403 and spends or erases nothing", async () => {
    const { url, db } = await testServer();
    const co = await growthCheckout(url);
    const other = await growthCheckout(url);
    expect((await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId })).status).toBe(200);
    await db.checkoutSession.update({ where: { id: co.sessionId }, data: { provisionedAt: new Date(Date.now() - 16 * 60_000) } });
    const sealed = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;

    const bare = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId });
    expect(bare.status).toBe(403);
    expect(bare.body.error.details.reason).toBe("reveal_window_passed");
    expect(bare.body.error.message).toMatch(/emailProofToken/);
    for (const emailProofToken of ["ept_guessed-by-someone", other.emailProofToken, co.emailProofToken.slice(0, -1)]) {
      const refused = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken });
      expect(refused.status, emailProofToken).toBe(403);
      expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "checkout_proof_mismatch" } });
      expect(refused.text).not.toMatch(/bi_test_/);
    }

    const after = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    expect(after.revealPayloadEnc).toBe(sealed.revealPayloadEnc);
    expect(after.revealedAt).toBeNull();
    expect(await db.auditEntry.count({ where: { orgId: sealed.orgId!, action: "billing.keys_revealed" } })).toBe(0);
    expect((await fromIp(url).get(`/v1/billing/checkout/${co.sessionId}`)).body.revealAvailable).toBe(true);

    const reveal = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken: co.emailProofToken });
    expect(reveal.status, reveal.text).toBe(200);
    expect((await client(url, reveal.body.apiKey).get("/v1/tenant")).body.organizationId).toBe(sealed.orgId);
  });

  it("takes 5 reveal attempts per session an hour, from any address", async () => {
    const { url, db } = await testServer();
    const co = await growthCheckout(url);
    expect((await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const wrong = await fromIp(url, `198.51.100.${i + 10}`).post("/v1/billing/checkout/reveal", {
        sessionId: co.sessionId,
        emailProofToken: `ept_${i}`,
      });
      expect(wrong.status).toBe(403);
    }
    const sixth = await fromIp(url, "198.51.100.99").post("/v1/billing/checkout/reveal", { sessionId: co.sessionId });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!.revealedAt).toBeNull();
  });

  it("reveals to exactly one of 5 parallel callers (the session's hourly attempts)", async () => {
    const { url } = await testServer();
    const co = await growthCheckout(url);
    expect((await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId })).status).toBe(200);
    const all = await Promise.all(
      Array.from({ length: 5 }, () =>
        fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken: co.emailProofToken }),
      ),
    );
    expect(all.filter((r) => r.status === 200)).toHaveLength(1);
    expect(all.filter((r) => r.status === 409)).toHaveLength(4);
  });

  it("shows an unpaid checkout as expired after its day, and still settles a payment that arrives late", async () => {
    const { url, db } = await testServer();
    const co = await growthCheckout(url);
    await db.checkoutSession.update({ where: { id: co.sessionId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await fromIp(url).get(`/v1/billing/checkout/${co.sessionId}`)).body.status).toBe("expired");
    const late = await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId });
    expect(late.status, late.text).toBe(200);
    expect((await fromIp(url).get(`/v1/billing/checkout/${co.sessionId}`)).body.status).toBe("provisioned");
  });

  it("answers 404 for an unknown session, in the envelope", async () => {
    const { url } = await testServer();
    for (const id of ["6f1d2a8e-8a43-4c55-9a55-0a4c1f2e9b11", "not-a-session"]) {
      const res = await fromIp(url).get(`/v1/billing/checkout/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
      expect((await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: id, emailProofToken: "ept_any" })).status).toBe(404);
      expect((await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: id })).status).toBe(404);
    }
  });
});
