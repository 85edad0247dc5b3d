import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAppError } from "../../errors";
import { type FakeStripe, startFakeStripe, stripeEnvOf } from "../../testing/fake-stripe";
import { paymentsConfig } from "./config";
import { createSandboxPayments } from "./sandbox";
import { createStripePayments } from "./stripe";

let fake: FakeStripe;
const provider = () => createStripePayments(paymentsConfig({ ...stripeEnvOf(fake), STRIPE_TIMEOUT_MS: "2000" }, "sandbox").stripe!);

beforeAll(async () => {
  fake = await startFakeStripe();
});
afterAll(() => fake.close());

describe("Stripe invoices", () => {
  it("lists one customer's invoices, newest first, with the fields the console shows", async () => {
    const older = fake.addInvoice("cus_list1", { created: 1_780_000_000, number: "BI-0001", amount_due: 49900 });
    const newer = fake.addInvoice("cus_list1", { created: 1_782_600_000, number: "BI-0002", status: "open", invoice_pdf: null });
    fake.addInvoice("cus_someone_else", { created: 1_782_700_000 });
    const before = fake.requests.length;

    const list = await provider().listInvoices("cus_list1");

    expect(list).toEqual([
      {
        id: newer.id,
        number: "BI-0002",
        status: "open",
        amountDue: 49900,
        currency: "usd",
        created: new Date(1_782_600_000 * 1000),
        hostedInvoiceUrl: newer.hosted_invoice_url,
        pdfUrl: null,
      },
      {
        id: older.id,
        number: "BI-0001",
        status: "paid",
        amountDue: 49900,
        currency: "usd",
        created: new Date(1_780_000_000 * 1000),
        hostedInvoiceUrl: older.hosted_invoice_url,
        pdfUrl: older.invoice_pdf,
      },
    ]);
    // What we sent: one GET of /v1/invoices for that customer, at most 24, with the secret key.
    const sent = fake.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: "GET",
      path: "/v1/invoices",
      authorization: `Bearer ${fake.secretKey}`,
      params: { customer: "cus_list1", limit: "24" },
    });
  });

  it("answers at most 24 and an empty list for a customer without invoices", async () => {
    for (let i = 0; i < 30; i++) fake.addInvoice("cus_many", { created: 1_770_000_000 + i });
    const list = await provider().listInvoices("cus_many");
    expect(list).toHaveLength(24);
    expect(list[0]!.created.getTime()).toBe((1_770_000_000 + 29) * 1000);
    expect(await provider().listInvoices("cus_nothing_yet")).toEqual([]);
  });

  it("reduces Stripe's failures to ours: 5xx is unavailable, a refusal is a provider failure", async () => {
    fake.failNext(500, "api_error", 2);
    const down = await provider()
      .listInvoices("cus_list1")
      .catch((e: unknown) => e);
    expect(isAppError(down) && down.code).toBe("PROVIDER_UNAVAILABLE");
    fake.failNext(400, "invalid_request_error");
    const refused = await provider()
      .listInvoices("cus_list1")
      .catch((e: unknown) => e);
    expect(isAppError(refused) && refused.code).toBe("PROVIDER_FAILURE");
  });
});

describe("sandbox invoices", () => {
  it("keeps none: a sandbox checkout is settled on our side and never charged", async () => {
    expect(await createSandboxPayments().listInvoices("sbx_cus_anything")).toEqual([]);
  });
});
