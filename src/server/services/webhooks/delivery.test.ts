import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "@/webhooks/verify";
import { backoffMs, leaseMs, MAX_BACKOFF_MS, signedHeaders, wireBody } from "./delivery";
import { envelopeBody } from "./dispatch";

describe("webhook backoff", () => {
  it("doubles from the base per attempt, within ±10 %", () => {
    for (let attempt = 1; attempt <= 7; attempt++) {
      const nominal = 2000 * 2 ** (attempt - 1);
      expect(backoffMs(attempt, 2000, () => 0)).toBe(nominal * 0.9);
      expect(backoffMs(attempt, 2000, () => 0.5)).toBe(nominal);
      expect(backoffMs(attempt, 2000, () => 0.999999)).toBeLessThanOrEqual(nominal * 1.1);
    }
  });

  it("is capped at one hour, jitter included", () => {
    expect(backoffMs(12, 2000, () => 0.5)).toBe(MAX_BACKOFF_MS);
    expect(backoffMs(30, 2000, () => 0.999)).toBe(MAX_BACKOFF_MS);
    expect(backoffMs(12, 2000, () => 0)).toBe(MAX_BACKOFF_MS * 0.9);
  });

  it("leases a claim for longer than an attempt can take", () => {
    expect(leaseMs(10_000)).toBe(20_000);
    expect(leaseMs(800)).toBe(5_800);
  });
});

const event = {
  event: "account.unlocked",
  orgId: "t",
  payload: { accountDid: "did:antelope:sandbox:a" },
  createdAt: new Date("2026-11-23T07:00:00.000Z"),
};
// A body as stored before the delivery id went into the envelope.
const legacy =
  '{"event":"account.unlocked","tenantId":"t","payload":{"accountDid":"did:antelope:sandbox:a"},"createdAt":"2026-11-23T07:00:00.000Z"}';

describe("signed headers", () => {
  it("sign `${timestamp}.${body}` with the secret string, and the body carries the delivery id, which verifyWebhook accepts", () => {
    const body = envelopeBody({ ...event, deliveryId: "d-1" });
    expect(JSON.parse(body)).toEqual({
      id: "d-1",
      event: "account.unlocked",
      tenantId: "t",
      payload: { accountDid: "did:antelope:sandbox:a" },
      createdAt: "2026-11-23T07:00:00.000Z",
    });
    const h = signedHeaders({ id: "d-1", event: "account.unlocked" }, body, "whsec_k", 1_790_000_000_000);
    expect(h).toMatchObject({
      "x-bi-event": "account.unlocked",
      "x-bi-timestamp": "1790000000000",
      "x-bi-delivery-id": "d-1",
      "content-type": "application/json",
    });
    expect(h["x-bi-signature"]).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyWebhook(body, h, "whsec_k", { now: 1_790_000_000_000 })).toMatchObject({ id: "d-1", deliveryId: "d-1" });
    // The same signed bytes presented as another delivery are refused.
    const asAnother = { ...h, "x-bi-delivery-id": "d-2" };
    expect(() => verifyWebhook(body, asAnother, "whsec_k", { now: 1_790_000_000_000 })).toThrow(WebhookVerificationError);
  });
});

describe("the bytes a delivery sends", () => {
  it("are the stored body itself when it already carries the id", () => {
    const body = envelopeBody({ ...event, deliveryId: "d-1" });
    expect(wireBody(body, "d-1")).toBe(body);
  });

  it("put the id in front of a body stored without one, keeping every other byte, the same on every call", () => {
    const sent = wireBody(legacy, "d-1");
    expect(sent).toBe(`{"id":"d-1",${legacy.slice(1)}`);
    expect(sent).toBe(envelopeBody({ ...event, deliveryId: "d-1" }));
    expect(wireBody(legacy, "d-1")).toBe(sent);
    const h = signedHeaders({ id: "d-1", event: "account.unlocked" }, sent, "whsec_k", 1_790_000_000_000);
    expect(verifyWebhook(sent, h, "whsec_k", { now: 1_790_000_000_000 }).id).toBe("d-1");
  });

  it("give an empty object its id, and leave a body that is not a JSON object as it is", () => {
    expect(wireBody("{}", "d-1")).toBe('{"id":"d-1"}');
    expect(wireBody("[]", "d-1")).toBe("[]");
    expect(wireBody("not json", "d-1")).toBe("not json");
  });
});
