import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { resetPaymentsCache } from "../../providers/payments";
import { emailProof, fromIp, trustLoopbackProxy } from "../../testing/billing";
import { type FakeStripe, useFakeStripe } from "../../testing/fake-stripe";
import { client, createTestOrg, testServer } from "../../testing/harness";

// One case pays an upgrade on the sandbox chain; it need not wait for finality.
process.env.SANDBOX_CHAIN_FINALITY_SEC = "0";
resetEnvCache();
trustLoopbackProxy();

let stripe: FakeStripe;
let restoreStripe: () => Promise<void>;

beforeAll(async () => {
  ({ fake: stripe, restore: restoreStripe } = await useFakeStripe(resetPaymentsCache));
});

afterAll(() => restoreStripe());

async function cardCheckout(url: string) {
  const proof = await emailProof(url);
  const res = await fromIp(url).post("/v1/billing/checkout", {
    emailProofToken: proof.token,
    plan: "growth",
    organizationName: "Card Payer Inc",
  });
  expect(res.status, res.text).toBe(200);
  return { ...res.body, email: proof.email, emailProofToken: proof.token } as {
    sessionId: string;
    checkoutUrl: string;
    email: string;
    emailProofToken: string;
  };
}

const webhook = (url: string, payload: string, header: string) =>
  fromIp(url).post("/v1/billing/stripe/webhook", undefined, {
    rawBody: payload,
    headers: { "stripe-signature": header, "content-type": "application/json" },
  });

const subscriptionOf = (sessionId: string) => `sub_${sessionId.slice(0, 8)}`;

function completed(sessionId: string, stripeSessionId: string, customer = `cus_${sessionId.slice(0, 8)}`, created?: number) {
  return stripe.signedEvent(
    "checkout.session.completed",
    {
      id: stripeSessionId,
      object: "checkout.session",
      client_reference_id: sessionId,
      customer,
      subscription: subscriptionOf(sessionId),
      payment_status: "paid",
      status: "complete",
      mode: "subscription",
      metadata: { checkoutId: sessionId },
    },
    { created },
  );
}

type SubscriptionEvent = "customer.subscription.updated" | "customer.subscription.deleted";

const subscriptionEvent = (type: SubscriptionEvent, sub: { id: string; customer: string; status: string }, created: number) =>
  stripe.signedEvent(type, { object: "subscription", ...sub }, { created });

/** A Builder organization upgraded through its own card checkout, whose completion Stripe created at `created`. */
async function upgradedByCard(url: string, created: number) {
  const { db } = await testServer();
  const org = await createTestOrg();
  const up = await client(url, org.apiKey).post("/v1/billing/upgrade");
  expect(up.status, up.text).toBe(200);
  const row = (await db.checkoutSession.findUnique({ where: { id: up.body.sessionId } }))!;
  const customer = `cus_${org.orgId.slice(0, 12)}`;
  const evt = completed(up.body.sessionId, row.paymentSessionId!, customer, created);
  expect((await webhook(url, evt.payload, evt.header)).body.action).toBe("upgraded");
  return { ...org, customer, subscription: subscriptionOf(up.body.sessionId) };
}

const orgRow = async (db: Awaited<ReturnType<typeof testServer>>["db"], orgId: string) =>
  (await db.organization.findUnique({ where: { id: orgId } }))!;

describe("Growth by card through Stripe", () => {
  it("creates a Checkout Session with the secret key, form encoding, the price and an Idempotency-Key", async () => {
    const { url, db } = await testServer();
    const co = await cardCheckout(url);
    const sent = stripe.requests.filter((r) => r.path === "/v1/checkout/sessions").at(-1)!;
    expect(sent.authorization).toBe(`Bearer ${stripe.secretKey}`);
    expect(sent.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(sent.idempotencyKey).toBe(`bi-checkout-${co.sessionId}`);
    expect(sent.params).toMatchObject({
      mode: "subscription",
      "line_items[0][price]": stripe.priceGrowth,
      "line_items[0][quantity]": "1",
      customer_email: co.email,
      client_reference_id: co.sessionId,
      "metadata[checkoutId]": co.sessionId,
    });
    expect(sent.params.success_url).toContain(co.sessionId);
    expect(co.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    const row = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    expect(row.paymentSessionId).toMatch(/^cs_test_/);
  });

  it("provisions on a signed checkout.session.completed; the same event again creates no second organization", async () => {
    const { url, db } = await testServer();
    const co = await cardCheckout(url);
    const row = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    const evt = completed(co.sessionId, row.paymentSessionId!);

    const first = await webhook(url, evt.payload, evt.header);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ received: true, action: "provisioned" });
    const again = await webhook(url, evt.payload, evt.header);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ received: true, duplicate: true });
    // A different event about the same paid session is acknowledged and changes nothing either.
    const other = completed(co.sessionId, row.paymentSessionId!);
    expect((await webhook(url, other.payload, other.header)).body.action).toBe("already_provisioned");
    expect(await db.organization.count({ where: { contactEmail: co.email } })).toBe(1);

    const org = (await db.organization.findFirst({ where: { contactEmail: co.email } }))!;
    expect(org).toMatchObject({
      plan: "growth",
      paymentCustomerId: `cus_${co.sessionId.slice(0, 8)}`,
      paymentSubscriptionId: subscriptionOf(co.sessionId),
      paymentSubscriptionEventAt: expect.any(Date),
    });
    const poll = await fromIp(url).get(`/v1/billing/checkout/${co.sessionId}`);
    expect(poll.body).toMatchObject({ status: "provisioned", revealAvailable: true });
    // Stripe's success_url carries the session id; the reveal also takes the proof the buyer's browser kept.
    expect((await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken: "ept_x" })).status).toBe(403);
    const reveal = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken: co.emailProofToken });
    expect(reveal.status, reveal.text).toBe(200);
    expect((await client(url, reveal.body.apiKey).get("/v1/tenant")).body.plan.id).toBe("growth");
  });

  it("answers 20 concurrent deliveries of one event with exactly one organization", async () => {
    const { url, db } = await testServer();
    const co = await cardCheckout(url);
    const row = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    const evt = completed(co.sessionId, row.paymentSessionId!);
    const all = await Promise.all(Array.from({ length: 20 }, () => webhook(url, evt.payload, evt.header)));
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(all.filter((r) => r.body.action === "provisioned")).toHaveLength(1);
    expect(await db.organization.count({ where: { contactEmail: co.email } })).toBe(1);
  });

  it("refuses a body whose signature does not verify, and changes nothing", async () => {
    const { url, db } = await testServer();
    const co = await cardCheckout(url);
    const row = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    const forged = stripe.signedEvent(
      "checkout.session.completed",
      { id: row.paymentSessionId, object: "checkout.session", payment_status: "paid" },
      { secret: "whsec_not_the_right_one_at_all" },
    );
    const res = await webhook(url, forged.payload, forged.header);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_SIGNATURE");
    const genuine = completed(co.sessionId, row.paymentSessionId!);
    const tampered = await webhook(url, genuine.payload.replace('"paid"', '"paid" '), genuine.header);
    expect(tampered.status).toBe(400);
    expect((await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!.status).toBe("awaiting_payment");
  });

  it("moves the plan on events of the organization's subscription, once per event id", async () => {
    const { url, db } = await testServer();
    const t0 = Math.floor(Date.now() / 1000);
    const org = await upgradedByCard(url, t0);
    const sub = { id: org.subscription, customer: org.customer };
    const unpaid = subscriptionEvent("customer.subscription.updated", { ...sub, status: "unpaid" }, t0 + 1);
    expect((await webhook(url, unpaid.payload, unpaid.header)).body.action).toBe("downgraded");
    expect((await webhook(url, unpaid.payload, unpaid.header)).body.duplicate).toBe(true);
    expect(await orgRow(db, org.orgId)).toMatchObject({ plan: "builder", paymentSubscriptionEventAt: new Date((t0 + 1) * 1000) });
    const tenant = await client(url, org.apiKey).get("/v1/tenant");
    expect(tenant.headers.get("x-ratelimit-plan-limit")).toBe("120");

    // The invoice is paid at last: Stripe reactivates the same subscription.
    const paid = subscriptionEvent("customer.subscription.updated", { ...sub, status: "active" }, t0 + 2);
    expect((await webhook(url, paid.payload, paid.header)).body.action).toBe("upgraded");
    expect(await orgRow(db, org.orgId)).toMatchObject({ plan: "growth", paymentSubscriptionEventAt: new Date((t0 + 2) * 1000) });
    const changes = await db.auditEntry.findMany({ where: { orgId: org.orgId, action: "billing.plan_changed" }, orderBy: { seq: "asc" } });
    expect(changes.map((c) => c.data)).toMatchObject([
      { from: "growth", to: "builder", subscriptionId: org.subscription },
      { from: "builder", to: "growth", subscriptionId: org.subscription },
    ]);
  });

  it("ignores a subscription event older than the last applied one, or for another subscription: the plan stays", async () => {
    const { url, db } = await testServer();
    const t0 = Math.floor(Date.now() / 1000);
    const org = await upgradedByCard(url, t0);
    expect(await orgRow(db, org.orgId)).toMatchObject({
      plan: "growth",
      paymentSubscriptionId: org.subscription,
      paymentSubscriptionEventAt: new Date(t0 * 1000),
    });
    const sub = { id: org.subscription, customer: org.customer };
    const renewed = subscriptionEvent("customer.subscription.updated", { ...sub, status: "active" }, t0 + 5);
    expect((await webhook(url, renewed.payload, renewed.header)).body.action).toBe("unchanged");

    // Created before the renewal that was applied, delivered after it (a retry, or Stripe's parallel sends).
    const staleDeleted = subscriptionEvent("customer.subscription.deleted", { ...sub, status: "canceled" }, t0 - 30);
    const staleUnpaid = subscriptionEvent("customer.subscription.updated", { ...sub, status: "unpaid" }, t0 + 4);
    const foreign = subscriptionEvent(
      "customer.subscription.deleted",
      { id: "sub_someone_elses", customer: org.customer, status: "canceled" },
      t0 + 60,
    );
    for (const [evt, action] of [
      [staleDeleted, "ignored_stale"],
      [staleUnpaid, "ignored_stale"],
      [foreign, "ignored_other_subscription"],
    ] as const) {
      const res = await webhook(url, evt.payload, evt.header);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ received: true, action });
    }
    expect(await orgRow(db, org.orgId)).toMatchObject({
      plan: "growth",
      paymentSubscriptionId: org.subscription,
      paymentSubscriptionEventAt: new Date((t0 + 5) * 1000),
    });
    expect((await client(url, org.apiKey).get("/v1/tenant")).headers.get("x-ratelimit-plan-limit")).toBe("600");
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "billing.plan_changed" } })).toBe(0);
    const ignored = await db.auditEntry.findMany({
      where: { orgId: org.orgId, action: "billing.subscription_event_ignored" },
      orderBy: { seq: "asc" },
    });
    expect(ignored.map((e) => e.data)).toMatchObject([
      { reason: "stale", eventId: staleDeleted.id, subscriptionId: org.subscription, plan: "growth" },
      { reason: "stale", eventId: staleUnpaid.id, subscriptionId: org.subscription, plan: "growth" },
      { reason: "other_subscription", eventId: foreign.id, subscriptionId: "sub_someone_elses", plan: "growth" },
    ]);

    // A newer cancellation of its own subscription still applies, and the delayed renewal does not undo it.
    const cancelled = subscriptionEvent("customer.subscription.deleted", { ...sub, status: "canceled" }, t0 + 10);
    expect((await webhook(url, cancelled.payload, cancelled.header)).body.action).toBe("downgraded");
    const lateRenewal = subscriptionEvent("customer.subscription.updated", { ...sub, status: "active" }, t0 + 7);
    expect((await webhook(url, lateRenewal.payload, lateRenewal.header)).body.action).toBe("ignored_stale");
    expect(await orgRow(db, org.orgId)).toMatchObject({ plan: "builder", paymentSubscriptionEventAt: new Date((t0 + 10) * 1000) });
  });

  it("ends on the newest event when two events of one subscription are delivered at once", async () => {
    const { url, db } = await testServer();
    const t0 = Math.floor(Date.now() / 1000);
    const orgs = await Promise.all(Array.from({ length: 4 }, () => upgradedByCard(url, t0)));
    await Promise.all(
      orgs.map((org) => {
        const sub = { id: org.subscription, customer: org.customer };
        const active = subscriptionEvent("customer.subscription.updated", { ...sub, status: "active" }, t0 + 1);
        const deleted = subscriptionEvent("customer.subscription.deleted", { ...sub, status: "canceled" }, t0 + 2);
        return Promise.all([webhook(url, deleted.payload, deleted.header), webhook(url, active.payload, active.header)]);
      }),
    );
    for (const org of orgs) {
      expect(await orgRow(db, org.orgId)).toMatchObject({ plan: "builder", paymentSubscriptionEventAt: new Date((t0 + 2) * 1000) });
    }
  });

  it("ignores subscription events of an organization that no card subscription pays for", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "growth" });
    const customer = `cus_${org.orgId.slice(0, 12)}`;
    await db.organization.update({ where: { id: org.orgId }, data: { paymentCustomerId: customer } });
    const deleted = subscriptionEvent(
      "customer.subscription.deleted",
      { id: "sub_unknown", customer, status: "canceled" },
      Math.floor(Date.now() / 1000),
    );
    const res = await webhook(url, deleted.payload, deleted.header);
    expect(res.status).toBe(200);
    expect(res.body.action).toBe("ignored_other_subscription");
    expect(await orgRow(db, org.orgId)).toMatchObject({ plan: "growth", paymentSubscriptionId: null, paymentSubscriptionEventAt: null });
    const ignored = await db.auditEntry.findFirst({ where: { orgId: org.orgId, action: "billing.subscription_event_ignored" } });
    expect(ignored?.data).toMatchObject({ reason: "other_subscription", eventId: deleted.id, subscriptionId: "sub_unknown" });
  });

  it("lets go of the card subscription when Growth is paid on chain: its later events change nothing", async () => {
    const { url, db } = await testServer();
    const t0 = Math.floor(Date.now() / 1000);
    const org = await upgradedByCard(url, t0);
    const api = client(url, org.apiKey);
    const sub = { id: org.subscription, customer: org.customer };
    const unpaid = subscriptionEvent("customer.subscription.updated", { ...sub, status: "unpaid" }, t0 + 1);
    expect((await webhook(url, unpaid.payload, unpaid.header)).body.action).toBe("downgraded");

    const up = await api.post("/v1/billing/upgrade");
    expect(up.status, up.text).toBe(200);
    const t = await api.post("/v1/sandbox/chain/transfer", {
      from: "payer.bi",
      to: up.body.chainPayment.treasury,
      quantity: up.body.chainPayment.amount,
      memo: up.body.chainPayment.memo,
    });
    expect(t.status, t.text).toBe(200);
    const ok = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: up.body.sessionId, transactionId: t.body.transactionId });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ upgraded: true, revealAvailable: false });
    expect(await orgRow(db, org.orgId)).toMatchObject({ plan: "growth", paymentSubscriptionId: null, paymentSubscriptionEventAt: null });

    const deleted = subscriptionEvent("customer.subscription.deleted", { ...sub, status: "canceled" }, t0 + 100);
    expect((await webhook(url, deleted.payload, deleted.header)).body.action).toBe("ignored_other_subscription");
    expect((await orgRow(db, org.orgId)).plan).toBe("growth");
  });

  it("upgrades Builder to Growth when the upgrade's Checkout Session completes, keeping the organization and its key", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const up = await api.post("/v1/billing/upgrade");
    expect(up.status, up.text).toBe(200);
    const sent = stripe.requests.filter((r) => r.path === "/v1/checkout/sessions").at(-1)!;
    expect(sent.params.client_reference_id).toBe(up.body.sessionId);
    expect(sent.params.customer_email).toMatch(/@example\.test$/);
    const row = (await db.checkoutSession.findUnique({ where: { id: up.body.sessionId } }))!;
    const evt = completed(up.body.sessionId, row.paymentSessionId!, "cus_upgrader1");
    const res = await webhook(url, evt.payload, evt.header);
    expect(res.body).toMatchObject({ received: true, action: "upgraded" });
    expect((await db.organization.findUnique({ where: { id: org.orgId } }))!).toMatchObject({
      plan: "growth",
      paymentCustomerId: "cus_upgrader1",
      paymentSubscriptionId: subscriptionOf(up.body.sessionId),
    });
    const next = await api.get("/v1/tenant");
    expect(next.status).toBe(200);
    expect(next.headers.get("x-ratelimit-plan-limit")).toBe("600");
  });

  it("opens the customer portal for the organization's Stripe customer; 409 without one", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const none = await client(url, org.apiKey).post("/v1/billing/portal");
    expect(none.status).toBe(409);
    expect(none.body.error.details.reason).toBe("no_payment_customer");
    await db.organization.update({ where: { id: org.orgId }, data: { paymentCustomerId: "cus_portal123" } });
    const res = await client(url, org.apiKey).post("/v1/billing/portal");
    expect(res.status, res.text).toBe(200);
    expect(res.body.url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_test_/);
    const sent = stripe.requests.filter((r) => r.path === "/v1/billing_portal/sessions").at(-1)!;
    expect(sent.params.customer).toBe("cus_portal123");
    expect(sent.authorization).toBe(`Bearer ${stripe.secretKey}`);
  });

  it("leaves the email proof unspent when Stripe is down, so the same checkout can be retried", async () => {
    const { url } = await testServer();
    const proof = await emailProof(url);
    const body = { emailProofToken: proof.token, plan: "growth", organizationName: "Retry Ltd" };
    // The SDK retries once by itself (maxNetworkRetries: 1), so Stripe must fail twice.
    stripe.failNext(500, "api_error", 2);
    const down = await fromIp(url).post("/v1/billing/checkout", body);
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(down.text).not.toContain(stripe.secretKey);
    stripe.failNext(400, "invalid_request_error");
    const refused = await fromIp(url).post("/v1/billing/checkout", body);
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({ code: "PROVIDER_FAILURE", details: { providerCode: "invalid_request_error" } });
    const retry = await fromIp(url).post("/v1/billing/checkout", body);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.status).toBe("awaiting_payment");
  });
});
