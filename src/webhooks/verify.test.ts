import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "./verify";

const secret = "whsec_test-secret";
const deliveryId = "3f1c2a9e-0000-4000-8000-000000000001";
const body = JSON.stringify({
  id: deliveryId,
  event: "kyc.approved",
  tenantId: "org-1",
  payload: { personDid: "did:web:x:people:1", level: "basic-kyc" },
  createdAt: "2026-11-23T07:00:00.000Z",
});
const now = 1_790_000_000_000;

function headers(overrides: Record<string, string> = {}, signedBody = body, ts = String(now)) {
  return {
    "X-BI-Event": "kyc.approved",
    "X-BI-Timestamp": ts,
    "X-BI-Signature": createHmac("sha256", secret).update(`${ts}.${signedBody}`).digest("hex"),
    "X-BI-Delivery-Id": deliveryId,
    ...overrides,
  };
}

const reasonOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WebhookVerificationError);
    return (e as WebhookVerificationError).reason;
  }
  throw new Error("expected a verification failure");
};

describe("verifyWebhook", () => {
  it("accepts a genuine delivery from a string, bytes, a header record or a Headers object", () => {
    const expected = { id: deliveryId, event: "kyc.approved", tenantId: "org-1", deliveryId, timestampMs: now };
    expect(verifyWebhook(body, headers(), secret, { now })).toMatchObject(expected);
    expect(verifyWebhook(new TextEncoder().encode(body), headers(), secret, { now })).toMatchObject(expected);
    expect(verifyWebhook(body, new Headers(headers()), secret, { now })).toMatchObject(expected);
    const lower = Object.fromEntries(Object.entries(headers()).map(([k, v]) => [k.toLowerCase(), [v]]));
    expect(verifyWebhook(body, lower, secret, { now }).payload).toEqual({ personDid: "did:web:x:people:1", level: "basic-kyc" });
  });

  it("refuses re-serialised JSON, another secret, a changed timestamp and a forged signature", () => {
    const reformatted = JSON.stringify(JSON.parse(body), null, 2);
    expect(reasonOf(() => verifyWebhook(reformatted, headers(), secret, { now }))).toBe("invalid_signature");
    expect(reasonOf(() => verifyWebhook(body, headers(), "whsec_other", { now }))).toBe("invalid_signature");
    expect(reasonOf(() => verifyWebhook(body, headers({ "X-BI-Timestamp": String(now + 1) }), secret, { now }))).toBe("invalid_signature");
    expect(reasonOf(() => verifyWebhook(body, headers({ "X-BI-Signature": "00".repeat(32) }), secret, { now }))).toBe("invalid_signature");
    expect(reasonOf(() => verifyWebhook(body, headers({ "X-BI-Signature": "zz" }), secret, { now }))).toBe("invalid_signature");
  });

  it("refuses timestamps outside the tolerance (5 minutes by default)", () => {
    const old = String(now - 301_000);
    expect(reasonOf(() => verifyWebhook(body, headers({}, body, old), secret, { now }))).toBe("timestamp_out_of_tolerance");
    expect(verifyWebhook(body, headers({}, body, old), secret, { now, toleranceSec: 600 }).timestampMs).toBe(now - 301_000);
    expect(reasonOf(() => verifyWebhook(body, headers({}, body, String(now + 301_000)), secret, { now }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(reasonOf(() => verifyWebhook(body, headers({ "X-BI-Timestamp": "12.5" }), secret, { now }))).toBe("invalid_timestamp");
  });

  it("refuses missing headers and an event header that disagrees with the signed body", () => {
    const { "X-BI-Delivery-Id": _omit, ...noId } = headers();
    expect(reasonOf(() => verifyWebhook(body, noId, secret, { now }))).toBe("missing_header");
    expect(reasonOf(() => verifyWebhook(body, headers({ "X-BI-Event": "account.created" }), secret, { now }))).toBe("event_mismatch");
  });

  it("refuses a captured delivery sent again under another X-BI-Delivery-Id", () => {
    const captured = headers();
    expect(verifyWebhook(body, captured, secret, { now }).deliveryId).toBe(deliveryId);
    // Same bytes, timestamp and signature, inside the tolerance: only the unsigned header is new.
    const replayed = { ...captured, "X-BI-Delivery-Id": "3f1c2a9e-0000-4000-8000-000000000002" };
    expect(reasonOf(() => verifyWebhook(body, replayed, secret, { now }))).toBe("delivery_id_mismatch");
    expect(reasonOf(() => verifyWebhook(body, new Headers(replayed), secret, { now }))).toBe("delivery_id_mismatch");
  });

  it("refuses a correctly signed body that carries no delivery id, or one that is not a string", () => {
    const { id: _id, ...rest } = JSON.parse(body) as Record<string, unknown>;
    for (const unsigned of [JSON.stringify(rest), JSON.stringify({ ...rest, id: 1 }), JSON.stringify({ id: null, ...rest })]) {
      expect(reasonOf(() => verifyWebhook(unsigned, headers({}, unsigned), secret, { now }))).toBe("invalid_body");
    }
  });

  it("imports nothing but node:crypto, so receivers can copy the file", async () => {
    const fs = await import("node:fs");
    const src = fs.readFileSync(new URL("./verify.ts", import.meta.url), "utf8");
    expect([...src.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1])).toEqual(["node:crypto"]);
  });
});
