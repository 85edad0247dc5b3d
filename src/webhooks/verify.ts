import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Verification of Bind Identity webhook deliveries, for receivers. Depends on node:crypto only,
 * so a tenant can copy this file into their own service as it is.
 *
 * A delivery carries:
 *   X-BI-Event        event name
 *   X-BI-Timestamp    Unix time in milliseconds
 *   X-BI-Signature    hex HMAC-SHA256 of `${timestamp}.${rawBody}`, keyed with the signing secret
 *                     (the whole string returned at registration, as UTF-8); while a rotation's
 *                     overlap lasts, one signature per secret, space-separated, any of which may match
 *   X-BI-Delivery-Id  stable id of the delivery: deduplicate on it (delivery is at-least-once)
 *
 * The headers are not signed, the body is. The body's `id` is the delivery id and `event` the
 * event name, so both headers are checked against the signed body: otherwise a captured delivery
 * sent again with a new X-BI-Delivery-Id would pass deduplication as a new delivery.
 */

export type WebhookEnvelope = {
  id: string;
  event: string;
  tenantId: string;
  payload: Record<string, unknown>;
  createdAt: string;
  /** Present (true) only on a test event sent from the console or `POST /v1/admin/webhooks/{id}/test`. */
  test?: true;
};

export type VerifiedWebhook = WebhookEnvelope & { deliveryId: string; timestampMs: number };

export type VerifyFailure =
  | "missing_header"
  | "invalid_timestamp"
  | "timestamp_out_of_tolerance"
  | "invalid_signature"
  | "invalid_body"
  | "event_mismatch"
  | "delivery_id_mismatch";

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: VerifyFailure,
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Checks a delivery and returns its envelope with the delivery id. `rawBody` must be the exact
 * bytes received (not re-serialised JSON). Throws WebhookVerificationError when the signature,
 * the timestamp (more than `toleranceSec` from `now`, default 300 s) or the body is wrong, or when
 * X-BI-Event or X-BI-Delivery-Id differs from the signed body's `event` or `id`.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secret: string,
  opts: { toleranceSec?: number; now?: number } = {},
): VerifiedWebhook {
  const timestamp = header(headers, "x-bi-timestamp");
  const signature = header(headers, "x-bi-signature");
  const deliveryId = header(headers, "x-bi-delivery-id");
  const eventName = header(headers, "x-bi-event");
  if (!timestamp || !signature || !deliveryId || !eventName) {
    throw new WebhookVerificationError("missing_header", "X-BI-Timestamp, X-BI-Signature, X-BI-Delivery-Id and X-BI-Event are required.");
  }
  if (!/^\d{1,16}$/.test(timestamp)) throw new WebhookVerificationError("invalid_timestamp", "X-BI-Timestamp is not Unix milliseconds.");
  const timestampMs = Number(timestamp);
  const toleranceMs = (opts.toleranceSec ?? 300) * 1000;
  if (Math.abs((opts.now ?? Date.now()) - timestampMs) > toleranceMs) {
    throw new WebhookVerificationError("timestamp_out_of_tolerance", "X-BI-Timestamp is too far from the current time.");
  }
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody);
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
  // During a secret rotation the header lists one signature per secret, space-separated: any may match.
  const matches = signature
    .split(" ")
    .filter((sig) => /^[0-9a-f]{64}$/i.test(sig))
    .some((sig) => timingSafeEqual(Buffer.from(sig, "hex"), expected));
  if (!matches) {
    throw new WebhookVerificationError("invalid_signature", "X-BI-Signature does not match the body and timestamp.");
  }
  let envelope: WebhookEnvelope;
  try {
    envelope = JSON.parse(body.toString("utf8")) as WebhookEnvelope;
  } catch {
    throw new WebhookVerificationError("invalid_body", "The body is not JSON.");
  }
  if (!envelope || typeof envelope.event !== "string" || typeof envelope.payload !== "object") {
    throw new WebhookVerificationError("invalid_body", "The body is not a webhook envelope.");
  }
  // Without a signed id the header could not be checked, and deduplicating on it would trust it blindly.
  if (typeof envelope.id !== "string") throw new WebhookVerificationError("invalid_body", "The body carries no delivery id.");
  // The headers are not signed; the body is. They must agree, or a router keyed on the header lies.
  if (envelope.event !== eventName) throw new WebhookVerificationError("event_mismatch", "X-BI-Event does not match the signed body.");
  if (envelope.id !== deliveryId) {
    throw new WebhookVerificationError("delivery_id_mismatch", "X-BI-Delivery-Id does not match the signed body's id.");
  }
  return { ...envelope, deliveryId, timestampMs };
}
