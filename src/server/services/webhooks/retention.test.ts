import { beforeAll, describe, expect, it } from "vitest";
import { type Db, getDb } from "@/server/db/client";
import { dispatchOutboxEvents } from "@/server/services/webhooks";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { emitUnlocked, webhookTestEnv } from "@/server/testing/webhook-drive";

let db: Db;
let url: string;

beforeAll(async () => {
  webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "false", WEBHOOK_BACKOFF_BASE_MS: "60000", WEBHOOK_TIMEOUT_MS: "800" });
  db = await getDb();
  url = (await testServer()).url;
});

describe("retention", () => {
  it("drops old dispatched outbox rows and old bodies of finished deliveries, keeping the rows; replay then answers payload_unavailable", async () => {
    webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    await api.post("/v1/admin/webhooks", { url: "http://127.0.0.1:9/hook", events: ["*"] });
    for (let i = 0; i < 3; i++) await emitUnlocked(db, org.orgId, `ret${i}`);
    await dispatchOutboxEvents(db, { orgId: org.orgId });
    const [dead, failed, pending] = await db.webhookDelivery.findMany({ where: { orgId: org.orgId }, orderBy: { createdAt: "asc" } });
    await db.webhookDelivery.update({ where: { id: dead!.id }, data: { status: "dead", attempts: 8 } });
    await db.webhookDelivery.update({ where: { id: failed!.id }, data: { status: "failed", attempts: 2 } });
    await db.webhookAttempt.create({
      data: { orgId: org.orgId, deliveryId: dead!.id, attempt: 8, outcome: "dead", statusCode: 500, latencyMs: 3, answer: "down" },
    });
    const { purgeWebhookHistory } = await import("@/server/services/webhooks/retention");
    expect(await purgeWebhookHistory(db, { orgId: org.orgId, now: new Date(Date.now() + 6 * 86_400_000) })).toEqual({
      outbox: 0,
      bodies: 0,
      attempts: 0,
    });
    expect(await purgeWebhookHistory(db, { orgId: org.orgId, now: new Date(Date.now() + 31 * 86_400_000) })).toEqual({
      outbox: 3,
      bodies: 1,
      attempts: 1,
    });
    const after = await db.webhookDelivery.findMany({ where: { orgId: org.orgId } });
    expect(after).toHaveLength(3);
    expect(after.find((d) => d.id === dead!.id)!.body).toBeNull();
    expect(after.find((d) => d.id === failed!.id)!.body).toBe(failed!.body);
    expect(after.find((d) => d.id === pending!.id)!.body).toBe(pending!.body);
    const res = await api.post(`/v1/admin/webhooks/deliveries/${dead!.id}/replay`);
    expect(res.status).toBe(409);
    expect(res.body.error.details.reason).toBe("payload_unavailable");
  });
});
