import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import type { MemberRole } from "@/generated/prisma/enums.ts";
import { resetPaymentsCache } from "../../providers/payments";
import { serviceCtx } from "../../testing/aml";
import { fromIp, trustLoopbackProxy } from "../../testing/billing";
import { type FakeStripe, useFakeStripe } from "../../testing/fake-stripe";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { createCaller } from "../root";

trustLoopbackProxy();
resetEnvCache();

const PROCEDURES = ["overview", "history", "invoices", "upgrade", "portal"] as const;
type Name = (typeof PROCEDURES)[number];

async function billingAs(orgId: string, role: MemberRole = "admin") {
  const { db } = await testServer();
  const svc = await serviceCtx(db, orgId, { type: "member", email: `${role}@billing.test`, role });
  return createCaller({ svc }).billing;
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "OK",
    (e: unknown) => (e instanceof TRPCError ? e.code : `not a TRPCError: ${String(e)}`),
  );

// The plan quota reaches the shared tables in batches (every 250 ms).
const flushed = () => new Promise((r) => setTimeout(r, 700));

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

describe("billing procedures", () => {
  it("refuse the operator (the role below admin) and answer the admin", async () => {
    const org = await createTestOrg();
    const operator = await billingAs(org.orgId, "operator");
    const admin = await billingAs(org.orgId, "admin");
    for (const name of PROCEDURES) {
      expect([name, await codeOf((operator[name] as () => Promise<unknown>)())]).toEqual([name, "FORBIDDEN"]);
    }
    // Reads first: the upgrade below changes what the organization is.
    for (const name of ["overview", "history", "invoices", "portal", "upgrade"] satisfies Name[]) {
      expect([name, await codeOf((admin[name] as () => Promise<unknown>)())]).toEqual([name, "OK"]);
    }
  });

  it("overview: the Builder plan from the catalog, Growth as the upgrade, meters that move with /v1 calls", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const billing = await billingAs(org.orgId);
    const before = await billing.overview();
    expect(before.plan).toMatchObject({ id: "builder", name: "Builder", priceUsdMonthly: 0, limits: { requestsPerMinute: 120 } });
    expect(before.upgradeTo).toMatchObject({
      id: "growth",
      name: "Growth",
      limits: { requestsPerMinute: 600 },
      verificationsPerMonth: 5000,
    });
    expect(before.payment).toEqual({ provider: "sandbox", hasCustomer: false });
    expect(before.usage.meters).toMatchObject({ requestsToday: 0, verificationsThisMonth: 0, accounts: 0 });

    const api = client(url, org.apiKey);
    for (let i = 0; i < 4; i++) expect((await api.get("/v1/tenant")).status).toBe(200);
    const kyc = await api.post("/v1/kyc/start", {});
    expect(kyc.status, kyc.text).toBe(200);
    await flushed();

    const after = await billing.overview();
    expect(after.usage.meters.requestsToday).toBe(5);
    expect(after.usage.meters.verificationsThisMonth).toBe(1);
    expect(after.usage.plan.verificationsPerMonth).toBe(100);
  });

  it("history: 30 UTC days ending today, zeros filled in, counting the calls made with the organization's key", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const other = await createTestOrg();
    const api = client(url, org.apiKey);
    for (let i = 0; i < 3; i++) expect((await api.get("/v1/tenant")).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await api.post("/v1/kyc/start", {})).status).toBe(200);
    // Another organization's traffic is not ours.
    expect((await client(url, other.apiKey).get("/v1/tenant")).status).toBe(200);
    await flushed();

    // Older use: 10 days ago counts, 30 days ago (one day before the window) does not.
    const now = Date.now();
    const daysAgo = (n: number) =>
      new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() - n));
    await db.usageDay.createMany({
      data: [
        { bucket: `plan:${org.orgId}`, day: daysAgo(10), count: 42 },
        { bucket: `plan:${org.orgId}`, day: daysAgo(30), count: 1000 },
      ],
    });
    const person = await db.person.findFirstOrThrow({ where: { orgId: org.orgId } });
    const session = await db.kycSession.findFirstOrThrow({ where: { orgId: org.orgId } });
    const { id: _id, createdAt: _c, updatedAt: _u, review: _r, ...copy } = session;
    await db.kycSession.create({ data: { ...copy, personId: person.id, createdAt: new Date(daysAgo(10).getTime() + 3_600_000) } });
    await db.kycSession.create({ data: { ...copy, personId: person.id, createdAt: new Date(daysAgo(30).getTime() + 3_600_000) } });

    const history = await (await billingAs(org.orgId)).history();
    expect(history.days).toHaveLength(30);
    expect(history.days[29]!.day).toBe(utcDay(new Date(now)));
    expect(history.days[0]!.day).toBe(utcDay(daysAgo(29)));
    for (let i = 1; i < 30; i++) expect(Date.parse(history.days[i]!.day) - Date.parse(history.days[i - 1]!.day)).toBe(86_400_000);
    expect(history.days[29]).toMatchObject({ requests: 5, verifications: 2 });
    expect(history.days[19]).toEqual({ day: utcDay(daysAgo(10)), requests: 42, verifications: 1 });
    expect(history.days.filter((_d, i) => i !== 19 && i !== 29).every((d) => d.requests === 0 && d.verifications === 0)).toBe(true);
    expect(history.totals).toEqual({ requests: 47, verifications: 3 });
  });

  it("upgrade: the checkout URL and chain terms; once paid the overview shows Growth and offers no upgrade", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const billing = await billingAs(org.orgId);
    const up = await billing.upgrade();
    expect(up).toMatchObject({ status: "awaiting_payment", plan: "growth" });
    expect(up.checkoutUrl).toContain(`/billing/sandbox-checkout/${up.sessionId}`);
    expect(up.chainPayment).toMatchObject({ treasury: "treasury.bi", amount: "499.0000 EOS" });
    // Asked again (a second click), the same pending checkout: Growth is never paid twice.
    expect((await billing.upgrade()).sessionId).toBe(up.sessionId);

    const paid = await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: up.sessionId });
    expect(paid.status, paid.text).toBe(200);
    const after = await (await billingAs(org.orgId)).overview();
    expect(after.plan).toMatchObject({ id: "growth", limits: { requestsPerMinute: 600 }, verificationsPerMonth: 5000 });
    expect(after.upgradeTo).toBeNull();
    const again = await billing.upgrade().catch((e: unknown) => e);
    expect(again).toBeInstanceOf(TRPCError);
    expect((again as TRPCError).code).toBe("CONFLICT");
    expect((again as TRPCError).message).toContain("cannot be upgraded here");
  });

  it("portal and invoices in the sandbox: a portal page, and no invoices with the reason", async () => {
    const org = await createTestOrg();
    const billing = await billingAs(org.orgId);
    expect((await billing.portal()).url).toContain("/billing/sandbox-portal?customer=");
    const inv = await billing.invoices();
    expect(inv).toMatchObject({ provider: "sandbox", invoices: [], reason: { code: "no_payment_customer" } });
    expect(inv.reason?.message).toContain("has not paid by card");
  });
});

describe("billing procedures with Stripe", () => {
  let stripe: FakeStripe;
  let restoreStripe: () => Promise<void>;
  beforeAll(async () => {
    ({ fake: stripe, restore: restoreStripe } = await useFakeStripe(resetPaymentsCache));
  });
  afterAll(() => restoreStripe());

  it("lists the customer's invoices; without a customer, no portal (in words) and no invoices with the reason", async () => {
    const { db } = await testServer();
    const payer = await createTestOrg({ plan: "growth" });
    await db.organization.update({ where: { id: payer.orgId }, data: { paymentCustomerId: "cus_console1" } });
    const inv = stripe.addInvoice("cus_console1", { created: 1_782_000_000, number: "BI-0042", amount_due: 49900 });
    stripe.addInvoice("cus_not_ours");

    const billing = await billingAs(payer.orgId);
    expect(await billing.invoices()).toEqual({
      provider: "stripe",
      reason: null,
      invoices: [
        {
          id: inv.id,
          number: "BI-0042",
          status: "paid",
          amountDue: 49900,
          currency: "usd",
          created: new Date(1_782_000_000 * 1000).toISOString(),
          hostedInvoiceUrl: inv.hosted_invoice_url,
          pdfUrl: inv.invoice_pdf,
        },
      ],
    });
    expect((await billing.overview()).payment).toEqual({ provider: "stripe", hasCustomer: true });
    expect((await billing.portal()).url).toMatch(/^https:\/\/billing\.stripe\.test\//);

    const unpaid = await billingAs((await createTestOrg()).orgId);
    const before = stripe.requests.length;
    const portal = await unpaid.portal().catch((e: unknown) => e);
    expect((portal as TRPCError).code).toBe("CONFLICT");
    expect((portal as TRPCError).message).toBe("This organization has not paid by card yet, so it has no billing portal.");
    expect(await unpaid.invoices()).toMatchObject({ provider: "stripe", invoices: [], reason: { code: "no_payment_customer" } });
    // Neither asked Stripe anything.
    expect(stripe.requests.length).toBe(before);
  });
});
