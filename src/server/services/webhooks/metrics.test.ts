import { beforeAll, describe, expect, it } from "vitest";
import { type Db, getDb } from "@/server/db/client";
import { listenOperatorMetrics } from "@/server/metrics";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { driveWebhooks, emitUnlocked, webhookTestEnv } from "@/server/testing/webhook-drive";
import { startReceiver } from "@/server/testing/webhook-receiver";

let db: Db;
let url: string;

beforeAll(async () => {
  webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "false", WEBHOOK_BACKOFF_BASE_MS: "60000", WEBHOOK_TIMEOUT_MS: "800" });
  db = await getDb();
  url = (await testServer()).url;
});

describe("metrics", () => {
  it("exposes deliveries by status and attempt latency to the operator, not to tenants", async () => {
    webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    const receiver = await startReceiver();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["*"] });
    await emitUnlocked(db, org.orgId);
    await driveWebhooks(db, org.orgId, () => receiver.received.length === 1);
    expect((await api.get("/v1/metrics")).text).not.toContain("bi_webhook");
    const operator = await listenOperatorMetrics(0, "127.0.0.1");
    const text = await (await fetch(`${operator.url}/metrics`)).text();
    await operator.close();
    expect(text).toMatch(/bi_webhook_deliveries\{status="delivered"\} [1-9]\d*/);
    expect(text).toMatch(/bi_webhook_deliveries\{status="pending"\} \d+/);
    expect(text).toMatch(/bi_webhook_attempts_total\{outcome="delivered"\} [1-9]\d*/);
    expect(text).toMatch(/bi_webhook_attempt_duration_seconds_bucket\{le="\+Inf",outcome="delivered"\} [1-9]\d*/);
  });
});
