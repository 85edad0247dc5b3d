import { describe, expect, it } from "vitest";
import { verifyWebhook } from "@/webhooks/verify";
import { backoffMs, leaseMs, MAX_BACKOFF_MS, signedHeaders } from "./delivery";

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

describe("signed headers", () => {
  it("sign `${timestamp}.${body}` with the secret string, which verifyWebhook accepts", () => {
    const body = JSON.stringify({
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
    expect(verifyWebhook(body, h, "whsec_k", { now: 1_790_000_000_000 }).deliveryId).toBe("d-1");
  });
});
