import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { type FakeAnswer, type FakeRequest, startFakeServer } from "./fake-http";

export type RecordedStripeRequest = {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
  /** The form-encoded body, decoded into flat bracket keys ("line_items[0][price]"). */
  params: Record<string, string>;
};

export type FakeStripe = {
  /** Origin for STRIPE_API_URL ("http://127.0.0.1:<port>"). */
  url: string;
  secretKey: string;
  webhookSecret: string;
  priceGrowth: string;
  requests: RecordedStripeRequest[];
  /** Gives `customer` an invoice (Stripe's shape; fields not given get test values); GET /v1/invoices lists them, newest first. */
  addInvoice(customer: string, fields?: Record<string, unknown>): Record<string, unknown>;
  /** The next `times` API calls answer this HTTP status with a Stripe error body. */
  failNext(status: number, type?: string, times?: number): void;
  /**
   * A webhook body and its Stripe-Signature header, signed with the SDK's own test helper.
   * `created` (Unix seconds, default now) lets a test deliver an event that Stripe created
   * earlier than one already delivered, as Stripe's retries and parallel sends do.
   */
  signedEvent(
    type: string,
    object: Record<string, unknown>,
    opts?: { id?: string; secret?: string; created?: number },
  ): { id: string; payload: string; header: string };
  close(): Promise<void>;
};

const rid = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;

/**
 * A local stand-in for the Stripe API that the official SDK is pointed at (its host, port and
 * protocol options). It answers the calls billing makes with Stripe's JSON shapes and checks
 * what we send the way Stripe does: the bearer secret key, form encoding, the required
 * parameters, and Idempotency-Key semantics (same key and body replays, another body is refused).
 */
export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = `sk_test_${randomBytes(12).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(16).toString("hex")}`;
  const priceGrowth = `price_${randomBytes(8).toString("hex")}`;
  const requests: RecordedStripeRequest[] = [];
  const idempotent = new Map<string, { body: string; status: number; answer: string }>();
  let failure: { status: number; type: string; times: number } | null = null;
  const invoices: Record<string, unknown>[] = [];

  const error = (status: number, type: string, message: string, extra: Record<string, string> = {}): FakeAnswer => ({
    status,
    json: { error: { type, message, ...extra } },
    headers: { "request-id": rid("req") },
  });

  const handle = ({ method, path: url, headers, raw }: FakeRequest): FakeAnswer => {
    const path = url.split("?")[0]!;
    const params = Object.fromEntries(new URLSearchParams(raw));
    const rec: RecordedStripeRequest = {
      method,
      path,
      authorization: headers.authorization,
      contentType: headers["content-type"],
      idempotencyKey: headers["idempotency-key"] as string | undefined,
      stripeVersion: headers["stripe-version"] as string | undefined,
      params,
    };
    requests.push(rec);
    if (rec.authorization !== `Bearer ${secretKey}`) return error(401, "invalid_request_error", "Invalid API Key provided.");
    if (failure) {
      const f = failure;
      if (--f.times <= 0) failure = null;
      return error(f.status, f.type, "Injected failure.");
    }
    if (method === "GET" && path === "/v1/invoices") {
      const query = Object.fromEntries(new URLSearchParams(url.split("?")[1] ?? ""));
      rec.params = query;
      const limit = query.limit === undefined ? 10 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        return error(400, "invalid_request_error", "Invalid integer: limit.", { param: "limit" });
      const mine = invoices.filter((i) => !query.customer || i.customer === query.customer);
      const data = mine.sort((a, b) => (b.created as number) - (a.created as number)).slice(0, limit);
      const body = JSON.stringify({ object: "list", url: "/v1/invoices", has_more: mine.length > limit, data });
      return { status: 200, body, headers: { "content-type": "application/json", "request-id": rid("req") } };
    }
    if (method !== "POST") return error(404, "invalid_request_error", "Unrecognized request URL.");
    if (!rec.contentType?.startsWith("application/x-www-form-urlencoded")) {
      return error(400, "invalid_request_error", "Bodies must be form-encoded.");
    }
    const idemKey = rec.idempotencyKey;
    if (idemKey) {
      const seen = idempotent.get(`${path} ${idemKey}`);
      if (seen && seen.body !== raw) {
        return error(
          400,
          "idempotency_error",
          "Keys for idempotent requests can only be used with the same parameters they were first used with.",
        );
      }
      if (seen)
        return { status: seen.status, body: seen.answer, headers: { "content-type": "application/json", "idempotent-replayed": "true" } };
    }
    let answer: Record<string, unknown>;
    if (path === "/v1/checkout/sessions") {
      // Our adapter must always send a key: a retried create would otherwise charge twice.
      if (!idemKey) return error(400, "invalid_request_error", "This fake requires an Idempotency-Key on checkout creation.");
      const missing = ["mode", "success_url", "line_items[0][price]", "line_items[0][quantity]"].find((k) => !params[k]);
      if (missing) return error(400, "invalid_request_error", `Missing required param: ${missing}.`, { param: missing });
      if (params.mode !== "subscription")
        return error(400, "invalid_request_error", "A recurring price needs mode=subscription.", { param: "mode" });
      if (params["line_items[0][price]"] !== priceGrowth) {
        return error(400, "invalid_request_error", "No such price.", { code: "resource_missing", param: "line_items[0][price]" });
      }
      if (params.customer_email === "") return error(400, "invalid_request_error", "Invalid email address: ", { param: "customer_email" });
      const id = rid("cs");
      answer = {
        id,
        object: "checkout.session",
        mode: "subscription",
        status: "open",
        payment_status: "unpaid",
        url: `https://checkout.stripe.test/c/pay/${id}`,
        customer: params.customer ?? null,
        customer_email: params.customer_email ?? null,
        client_reference_id: params.client_reference_id ?? null,
        metadata: { checkoutId: params["metadata[checkoutId]"] ?? null },
        subscription: null,
        success_url: params.success_url,
        cancel_url: params.cancel_url ?? null,
      };
    } else if (path === "/v1/billing_portal/sessions") {
      if (!params.customer?.startsWith("cus_"))
        return error(400, "invalid_request_error", "No such customer.", { code: "resource_missing", param: "customer" });
      const id = rid("bps");
      answer = {
        id,
        object: "billing_portal.session",
        customer: params.customer,
        return_url: params.return_url ?? null,
        url: `https://billing.stripe.test/p/session/${id}`,
      };
    } else {
      return error(404, "invalid_request_error", "Unrecognized request URL.");
    }
    const body = JSON.stringify(answer);
    if (idemKey) idempotent.set(`${path} ${idemKey}`, { body: raw, status: 200, answer: body });
    return { status: 200, body, headers: { "content-type": "application/json", "request-id": rid("req") } };
  };

  const server = await startFakeServer(handle);
  const sdk = new Stripe(secretKey);

  return {
    url: server.url,
    secretKey,
    webhookSecret,
    priceGrowth,
    requests,
    addInvoice(customer, fields = {}) {
      const id = rid("in");
      const invoice = {
        id,
        object: "invoice",
        customer,
        number: `TEST-${String(invoices.length + 1).padStart(4, "0")}`,
        status: "paid",
        amount_due: 49900,
        amount_paid: 49900,
        currency: "usd",
        created: Math.floor(Date.now() / 1000),
        hosted_invoice_url: `https://invoice.stripe.test/i/${id}`,
        invoice_pdf: `https://pay.stripe.test/invoice/${id}/pdf`,
        livemode: false,
        ...fields,
      };
      invoices.push(invoice);
      return invoice;
    },
    failNext(status, type = status >= 500 ? "api_error" : "invalid_request_error", times = 1) {
      failure = { status, type, times };
    },
    signedEvent(type, object, opts = {}) {
      const id = opts.id ?? rid("evt");
      const payload = JSON.stringify({
        id,
        object: "event",
        api_version: "2026-10-28.endive",
        created: opts.created ?? Math.floor(Date.now() / 1000),
        type,
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        data: { object },
      });
      const header = sdk.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? webhookSecret });
      return { id, payload, header };
    },
    close: server.close,
  };
}

const STRIPE_VARS = ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_PRICE_GROWTH", "STRIPE_API_URL"] as const;

/** The environment that points the service's Stripe provider at this fake. */
export const stripeEnvOf = (fake: FakeStripe) => ({
  STRIPE_SECRET_KEY: fake.secretKey,
  STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
  STRIPE_PRICE_GROWTH: fake.priceGrowth,
  STRIPE_API_URL: fake.url,
});

/**
 * Starts a fake Stripe, points the service's payment provider at it (`resetPayments` drops the
 * provider the service had chosen), and undoes both when done. Call from `beforeAll`.
 */
export async function useFakeStripe(resetPayments: () => void): Promise<{ fake: FakeStripe; restore: () => Promise<void> }> {
  const fake = await startFakeStripe();
  Object.assign(process.env, stripeEnvOf(fake));
  resetPayments();
  return {
    fake,
    restore: async () => {
      for (const v of STRIPE_VARS) delete process.env[v];
      resetPayments();
      await fake.close();
    },
  };
}
