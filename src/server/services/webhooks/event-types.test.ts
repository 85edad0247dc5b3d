import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_NAMES } from "@/lib/webhook-events";
import { EVENT_PAYLOADS } from "@/server/services/webhooks";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { boundAccount } from "@/server/testing/kyc-flow";

// The event catalog (GET /v1/admin/webhooks/event-types) lists every event the service sends, and
// the payloads the service really writes match the schemas it publishes.

describe("the webhook event catalog", () => {
  it("lists every event with when it fires and its payload's JSON Schema, to a key with webhook_manage only", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const res = await client(url, org.apiKey).get("/v1/admin/webhooks/event-types");
    expect(res.status).toBe(200);
    const types = res.body.eventTypes as { name: string; firesWhen: string; payloadSchema: Record<string, any> }[];
    expect(types.map((t) => t.name)).toEqual([...WEBHOOK_EVENT_NAMES]);
    const created = types.find((t) => t.name === "account.created")!;
    expect(created.firesWhen).toMatch(/provisioned/);
    expect(created.payloadSchema).toMatchObject({
      type: "object",
      required: ["accountDid", "lifecycle"],
      properties: { lifecycle: { enum: ["provisional", "bound", "unlocked", "suspended"] } },
    });
    const reader = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "reader", scopes: ["read"] });
    expect((await client(url, reader.body.apiKey).get("/v1/admin/webhooks/event-types")).status).toBe(403);
  });

  it("matches what the service writes: the payloads of a real KYC approval, create and bind", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await boundAccount(url, api);
    const events = await db.outboxEvent.findMany({ where: { orgId: org.orgId } });
    const seen = new Set(events.map((e) => e.event));
    for (const name of ["kyc.approved", "account.created", "identity.bound"]) expect(seen.has(name), name).toBe(true);
    for (const e of events) {
      const schema = EVENT_PAYLOADS[e.event as keyof typeof EVENT_PAYLOADS];
      expect(schema, e.event).toBeDefined();
      expect(schema.strict().safeParse(e.payload).success, `${e.event} ${JSON.stringify(e.payload)}`).toBe(true);
    }
  });
});
