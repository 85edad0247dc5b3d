import { beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_NAMES } from "@/lib/webhook-events";
import { type Db, getDb } from "@/server/db/client";
import { EVENT_PAYLOADS } from "@/server/services/webhooks";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { driveWebhooks, webhookTestEnv } from "@/server/testing/webhook-drive";
import { startReceiver } from "@/server/testing/webhook-receiver";
import { verifyWebhook } from "@/webhooks/verify";

// "Send test event" (docs/webhooks.md, "Sending a test event").

let db: Db;
let url: string;

beforeAll(async () => {
  webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_BACKOFF_BASE_MS: "50", WEBHOOK_TIMEOUT_MS: "800" });
  db = await getDb();
  url = (await testServer()).url;
});

describe("webhook test events", () => {
  it("sends a signed sample of every catalog event, valid against its schema and marked test, even to a webhook not subscribed to it", async () => {
    const receiver = await startReceiver();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const reg = await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["kyc.approved"] });
    const ids: string[] = [];
    for (const event of WEBHOOK_EVENT_NAMES) {
      const res = await api.post(`/v1/admin/webhooks/${reg.body.id}/test`, { event });
      expect(res.status, res.text).toBe(202);
      expect(res.body).toMatchObject({ webhookId: reg.body.id, event, status: "pending", attempts: 0 });
      ids.push(res.body.id);
    }
    await driveWebhooks(db, org.orgId, () => receiver.received.length >= WEBHOOK_EVENT_NAMES.length);
    expect(receiver.received.map((r) => r.deliveryId).sort()).toEqual([...ids].sort());
    for (const got of receiver.received) {
      const env = verifyWebhook(got.raw, got.headers as Record<string, string>, reg.body.secret);
      expect(env.test).toBe(true);
      expect(env.tenantId).toBe(org.orgId);
      // The catalog's JSON Schema is generated from these schemas, with no other properties allowed.
      expect(() => EVENT_PAYLOADS[env.event as keyof typeof EVENT_PAYLOADS].strict().parse(env.payload)).not.toThrow();
    }
    const listed = await api.get("/v1/admin/webhooks/deliveries");
    expect(listed.body.deliveries.filter((d: { status: string }) => d.status === "delivered")).toHaveLength(WEBHOOK_EVENT_NAMES.length);
    const audit = await db.auditEntry.findMany({ where: { orgId: org.orgId, action: "webhook.test_sent" } });
    expect(audit).toHaveLength(WEBHOOK_EVENT_NAMES.length);
  });

  it("refuses an unknown event, a deactivated webhook and another organization's webhook, writing nothing", async () => {
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const reg = await api.post("/v1/admin/webhooks", { url: "http://127.0.0.1:9/hook", events: ["*"] });
    const path = `/v1/admin/webhooks/${reg.body.id}/test`;
    for (const body of [{ event: "acount.created" }, {}, { event: "account.created", extra: true }]) {
      const res = await api.post(path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
    const stranger = client(url, (await createTestOrg()).apiKey);
    expect((await stranger.post(path, { event: "account.created" })).status).toBe(404);
    await api.delete(`/v1/admin/webhooks/${reg.body.id}`);
    const inactive = await api.post(path, { event: "account.created" });
    expect(inactive.status).toBe(409);
    expect(inactive.body.error.details.reason).toBe("webhook_inactive");
    expect(await db.webhookDelivery.count({ where: { orgId: org.orgId } })).toBe(0);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "webhook.test_sent" } })).toBe(0);
  });
});
