import { beforeAll, describe, expect, it } from "vitest";
import { seal } from "@/server/crypto/secret-box";
import { type Db, getDb } from "@/server/db/client";
import { emitEvent } from "@/server/platform/outbox";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { driveWebhooks, webhookTestEnv } from "@/server/testing/webhook-drive";
import { type ReceiverBehaviour, startReceiver } from "@/server/testing/webhook-receiver";

// What each attempt records of the receiver's answer (docs/webhooks.md, "Inspecting attempts").

let db: Db;
let url: string;

beforeAll(async () => {
  webhookTestEnv({
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_BACKOFF_BASE_MS: "60000",
    WEBHOOK_TIMEOUT_MS: "800",
    WEBHOOK_MAX_ATTEMPTS: "8",
  });
  db = await getDb();
  url = (await testServer()).url;
});

/** One event delivered once to a receiver behaving as given; returns its attempts as the API shows them. */
async function attemptsFor(behaviour: (secret: string) => ReceiverBehaviour) {
  let secret = "";
  const receiver = await startReceiver((n, req) => behaviour(secret)(n, req));
  const org = await createTestOrg();
  const api = client(url, org.apiKey);
  const reg = await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["*"] });
  secret = reg.body.secret;
  await db.$transaction((tx) => emitEvent(tx, org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:echo" }));
  await driveWebhooks(db, org.orgId, async () => (await db.webhookAttempt.count({ where: { orgId: org.orgId } })) >= 1);
  const delivery = await db.webhookDelivery.findFirstOrThrow({ where: { orgId: org.orgId } });
  const res = await api.get(`/v1/admin/webhooks/deliveries/${delivery.id}/attempts`);
  expect(res.status, res.text).toBe(200);
  return { res, secret, receiver, org, api, delivery };
}

describe("attempt answers", () => {
  it("a receiver echoing the signature, the secret and an address back: stored with all three redacted", async () => {
    const { res, secret, receiver } = await attemptsFor((secret) => (_n, req) => ({
      status: 500,
      body: JSON.stringify({ error: "cannot verify", headers: req.headers, configured: secret, contact: "ops.person@receiver.example" }),
    }));
    const sent = receiver.received[0]!;
    const signature = String(sent.headers["x-bi-signature"]);
    const [a] = res.body.attempts;
    expect(a).toMatchObject({ attempt: 1, outcome: "failed", statusCode: 500, error: "The receiver answered HTTP 500." });
    expect(a.latencyMs).toBeGreaterThanOrEqual(0);
    expect(a.answer).toContain("cannot verify");
    expect(a.answer).toContain(String(sent.headers["x-bi-delivery-id"]));
    expect(a.answer).toContain("[redacted]");
    const stored = JSON.stringify(await db.webhookAttempt.findMany({ where: { deliveryId: sent.deliveryId } }));
    for (const leaked of [secret, signature, secret.slice(6, 30), "ops.person@receiver.example"]) {
      expect(stored).not.toContain(leaked);
      expect(res.text).not.toContain(leaked);
    }
  });

  it("a redirect: no answer and no target stored, even when the body names it", async () => {
    const target = "http://10.20.30.40/internal/admin?token=abc";
    const { res, delivery } = await attemptsFor(() => () => ({ status: 302, headers: { location: target }, body: `Moved to ${target}` }));
    expect(res.body.attempts).toEqual([expect.objectContaining({ statusCode: 302, answer: null, outcome: "failed" })]);
    const row = await db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attemptLog: true } });
    expect(JSON.stringify(row)).not.toContain("10.20.30.40");
    expect(res.text).not.toContain("10.20.30.40");
  });

  it("keeps the first 2 KB of a success's answer; a long one is cut on a character boundary", async () => {
    const { res } = await attemptsFor(() => () => ({ status: 200, body: `a${"é".repeat(1500)}tail` }));
    const [a] = res.body.attempts;
    expect(a).toMatchObject({ outcome: "delivered", statusCode: 200 });
    // 2048 bytes would end inside an "é": the half character is dropped.
    expect(a.answer).toBe(`a${"é".repeat(1023)}`);
    expect(Buffer.byteLength(a.answer)).toBe(2047);
  });

  it("an address refused at delivery time: no status and no answer; another organization cannot read attempts", async () => {
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    // Registration would refuse it; written directly, as if the host had been repointed after registration.
    await db.webhook.create({
      data: { orgId: org.orgId, url: "http://169.254.169.254/latest", events: ["*"], secretEnc: seal("whsec_x") },
    });
    await db.$transaction((tx) => emitEvent(tx, org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:ssrf" }));
    await driveWebhooks(db, org.orgId, async () => (await db.webhookAttempt.count({ where: { orgId: org.orgId } })) >= 1);
    const delivery = await db.webhookDelivery.findFirstOrThrow({ where: { orgId: org.orgId } });
    const res = await api.get(`/v1/admin/webhooks/deliveries/${delivery.id}/attempts`);
    expect(res.body.attempts).toEqual([expect.objectContaining({ statusCode: null, answer: null, outcome: "failed" })]);
    expect(res.body.attempts[0].error).toMatch(/refused|not allowed/i);
    const stranger = client(url, (await createTestOrg()).apiKey);
    const other = await stranger.get(`/v1/admin/webhooks/deliveries/${delivery.id}/attempts`);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe("NOT_FOUND");
  });
});
