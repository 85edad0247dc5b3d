import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Db, getDb } from "@/server/db/client";
import { type EventName, emitEvent } from "@/server/platform/outbox";
import { createDeliveryWorker, dispatchOutboxEvents } from "@/server/services/webhooks";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { driveWebhooks, webhookTestEnv } from "@/server/testing/webhook-drive";
import { type Receiver, type ReceiverBehaviour, startReceiver } from "@/server/testing/webhook-receiver";
import { verifyWebhook, WebhookVerificationError } from "@/webhooks/verify";

const BASE_MS = 50;
const TIMEOUT_MS = 800;
let db: Db;
let url: string;

beforeAll(async () => {
  webhookTestEnv({
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_BACKOFF_BASE_MS: String(BASE_MS),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_MAX_ATTEMPTS: "8",
  });
  db = await getDb();
  url = (await testServer()).url;
});

// Tests that stop at "failed" use a long backoff for their case, so a retry cannot start before they look.
const noRetry = () => webhookTestEnv({ WEBHOOK_BACKOFF_BASE_MS: "60000" });
afterEach(() => void webhookTestEnv({ WEBHOOK_BACKOFF_BASE_MS: String(BASE_MS) }));

/** An organization with one webhook (registered over HTTP) pointing at `receiver`. */
async function orgWithHook(receiver: Receiver, events: string[] = ["*"]) {
  const org = await createTestOrg();
  const api = client(url, org.apiKey);
  const res = await api.post("/v1/admin/webhooks", { url: receiver.url, events });
  expect(res.status, res.text).toBe(201);
  return { org, api, hook: res.body as { id: string; secret: string } };
}

const emit = (orgId: string, event: EventName, payload: Record<string, string>) =>
  db.$transaction((tx) => emitEvent(tx, orgId, event, payload as never));
const rows = (orgId: string) => db.webhookDelivery.findMany({ where: { orgId }, orderBy: { createdAt: "asc" } });
const settled =
  (orgId: string, status: string, n = 1) =>
  async () =>
    (await rows(orgId)).filter((d) => d.status === status).length >= n;

/** Why verifyWebhook refused, or "accepted". */
function refusal(verify: () => unknown): string {
  try {
    verify();
    return "accepted";
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
}

async function oneDelivery(behaviour: ReceiverBehaviour, until: string, timeoutMs = 20_000) {
  const receiver = await startReceiver(behaviour);
  const { org, api, hook } = await orgWithHook(receiver);
  await emit(org.orgId, "account.created", { accountDid: "did:antelope:sandbox:alice", lifecycle: "provisional" });
  await driveWebhooks(db, org.orgId, settled(org.orgId, until), { timeoutMs });
  const [row] = await rows(org.orgId);
  return { receiver, org, api, hook, row: row! };
}

describe("webhook delivery to real receivers on loopback", () => {
  it("signs the exact raw bytes it sends, with the envelope and the four headers", async () => {
    const { receiver, org, hook, row } = await oneDelivery(() => 200, "delivered");
    const [got] = receiver.received;
    expect(got!.raw.toString("utf8")).toBe(row.body);
    const verified = verifyWebhook(got!.raw, got!.headers as Record<string, string>, hook.secret);
    expect(verified).toMatchObject({
      id: row.id,
      event: "account.created",
      tenantId: org.orgId,
      payload: { accountDid: "did:antelope:sandbox:alice", lifecycle: "provisional" },
      deliveryId: row.id,
    });
    expect(Object.keys(JSON.parse(row.body!))).toEqual(["id", "event", "tenantId", "payload", "createdAt"]);
    expect(JSON.parse(got!.raw.toString("utf8")).id).toBe(row.id);
    expect(got!.headers["x-bi-event"]).toBe("account.created");
    expect(Math.abs(Number(got!.headers["x-bi-timestamp"]) - Date.now())).toBeLessThan(10_000);
    // One changed byte, or the wrong secret, and the signature no longer verifies.
    const tampered = Buffer.from(got!.raw);
    tampered[tampered.length - 3]! ^= 1;
    expect(() => verifyWebhook(tampered, got!.headers as Record<string, string>, hook.secret)).toThrow(/signature/i);
    expect(() => verifyWebhook(got!.raw, got!.headers as Record<string, string>, "whsec_other")).toThrow(/signature/i);
    // The captured request sent again under a new delivery id: the signed body still names the old one.
    const asNew = { ...(got!.headers as Record<string, string>), "x-bi-delivery-id": "0b6f8c1e-2f4d-4c61-9d0e-5a1b2c3d4e5f" };
    expect(refusal(() => verifyWebhook(got!.raw, asNew, hook.secret))).toBe("delivery_id_mismatch");
    expect(row).toMatchObject({ status: "delivered", attempts: 1, lastError: null, lastStatusCode: 200 });
    expect(row.deliveredAt).toBeInstanceOf(Date);
  });

  it("500 then 200: delivered on the second attempt with the same delivery id", async () => {
    const { receiver, row } = await oneDelivery((n) => (n === 0 ? 500 : 200), "delivered");
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received.map((r) => r.deliveryId)).toEqual([row.id, row.id]);
    expect(receiver.received[0]!.raw.equals(receiver.received[1]!.raw)).toBe(true);
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(BASE_MS * 0.9 - 5);
    expect(row).toMatchObject({ status: "delivered", attempts: 2, lastError: null, lastStatusCode: 200 });
  });

  it("302: failed, and the redirect is not followed", async () => {
    noRetry();
    const target = await startReceiver(() => 200);
    const { receiver, row } = await oneDelivery(() => ({ status: 302, headers: { location: target.url } }), "failed");
    expect(receiver.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    expect(row).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 302 });
    expect(row.lastError).toMatch(/302.*redirects are not followed/);
    expect(row.nextAttemptAt.getTime()).toBeGreaterThan(row.updatedAt.getTime());
  });

  it("a receiver that never answers: failed with a timeout", async () => {
    noRetry();
    const started = Date.now();
    const { receiver, row } = await oneDelivery(() => "hang", "failed");
    expect(receiver.received).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(row).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: null });
    expect(row.lastError).toMatch(new RegExp(`No answer within ${TIMEOUT_MS} ms`));
  });

  it("a refused connection: failed", async () => {
    noRetry();
    const receiver = await startReceiver();
    const { org } = await orgWithHook(receiver);
    await receiver.close();
    await emit(org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:bob" });
    await driveWebhooks(db, org.orgId, settled(org.orgId, "failed"));
    const [row] = await rows(org.orgId);
    expect(row).toMatchObject({ status: "failed", attempts: 1, lastError: "The connection was refused." });
  });

  it("always 500: dead after 8 attempts, the delays doubling from the base", async () => {
    const { receiver, row } = await oneDelivery(() => 500, "dead", 40_000);
    expect(receiver.received).toHaveLength(8);
    expect(new Set(receiver.received.map((r) => r.deliveryId))).toEqual(new Set([row.id]));
    const gaps = receiver.received.slice(1).map((r, i) => r.at - receiver.received[i]!.at);
    gaps.forEach((gap, i) => {
      const nominal = BASE_MS * 2 ** i;
      // ±10 % jitter; the upper bound allows for polling and database time.
      expect(gap, `gap ${i + 1}`).toBeGreaterThanOrEqual(nominal * 0.9 - 5);
      expect(gap, `gap ${i + 1}`).toBeLessThanOrEqual(nominal * 1.1 + 250);
    });
    expect(gaps[6]! / gaps[5]!).toBeGreaterThan(1.5);
    expect(gaps[6]! / gaps[5]!).toBeLessThan(2.6);
    expect(row).toMatchObject({ status: "dead", attempts: 8, lastStatusCode: 500 });
    expect(row.lastError).toMatch(/HTTP 500/);
  });

  it("replay of a dead delivery: pending with attempts 0, then delivered with the original body and id, freshly signed", async () => {
    let healthy = false;
    const { receiver, org, api, hook, row } = await oneDelivery(() => (healthy ? 200 : 500), "dead", 40_000);
    const firstTimestamp = receiver.received[0]!.headers["x-bi-timestamp"];
    healthy = true;
    const res = await api.post(`/v1/admin/webhooks/deliveries/${row.id}/replay`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: row.id, status: "pending", attempts: 0, lastError: "The receiver answered HTTP 500." });
    await driveWebhooks(db, org.orgId, settled(org.orgId, "delivered"));
    const last = receiver.received.at(-1)!;
    expect(receiver.received).toHaveLength(9);
    expect(last.deliveryId).toBe(row.id);
    expect(last.raw.toString("utf8")).toBe(row.body);
    expect(last.headers["x-bi-timestamp"]).not.toBe(firstTimestamp);
    expect(verifyWebhook(last.raw, last.headers as Record<string, string>, hook.secret).deliveryId).toBe(row.id);
    const after = (await rows(org.orgId))[0]!;
    expect(after).toMatchObject({ status: "delivered", attempts: 1, body: row.body });
    const again = await api.post(`/v1/admin/webhooks/deliveries/${row.id}/replay`);
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe("already_delivered");
  }, 60_000);

  it("one event to two webhooks: each delivery's body carries that delivery's own id", async () => {
    const first = await startReceiver();
    const second = await startReceiver();
    const { org, api, hook } = await orgWithHook(first);
    const other = await api.post("/v1/admin/webhooks", { url: second.url, events: ["*"] });
    expect(other.status, other.text).toBe(201);
    await emit(org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:twice" });
    await driveWebhooks(db, org.orgId, settled(org.orgId, "delivered", 2));
    const byHook = new Map((await rows(org.orgId)).map((d) => [d.webhookId, d]));
    const a = byHook.get(hook.id)!;
    const b = byHook.get(other.body.id)!;
    expect(a.eventId).toBe(b.eventId);
    expect(a.id).not.toBe(b.id);
    const gotA = verifyWebhook(first.received[0]!.raw, first.received[0]!.headers as Record<string, string>, hook.secret);
    const gotB = verifyWebhook(second.received[0]!.raw, second.received[0]!.headers as Record<string, string>, other.body.secret);
    expect([gotA.id, gotA.deliveryId, JSON.parse(a.body!).id]).toEqual([a.id, a.id, a.id]);
    expect([gotB.id, gotB.deliveryId, JSON.parse(b.body!).id]).toEqual([b.id, b.id, b.id]);
    const { id: _a, ...restA } = JSON.parse(a.body!);
    const { id: _b, ...restB } = JSON.parse(b.body!);
    expect(restA).toEqual(restB);
  });

  it("a delivery stored without an id in its body is sent with its id put in front, the same bytes on retry and on replay", async () => {
    noRetry();
    const receiver = await startReceiver((n) => (n === 0 ? 500 : 200));
    const { org, api, hook } = await orgWithHook(receiver);
    await emit(org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:legacy" });
    await dispatchOutboxEvents(db, { orgId: org.orgId });
    const [created] = await rows(org.orgId);
    // The row as the dispatcher wrote it before bodies carried the delivery id.
    const { id: _id, ...envelope } = JSON.parse(created!.body!);
    const legacy = JSON.stringify(envelope);
    await db.webhookDelivery.update({ where: { id: created!.id }, data: { body: legacy } });
    await driveWebhooks(db, org.orgId, settled(org.orgId, "failed"));
    const res = await api.post(`/v1/admin/webhooks/deliveries/${created!.id}/replay`);
    expect(res.status, res.text).toBe(200);
    await driveWebhooks(db, org.orgId, settled(org.orgId, "delivered"));
    expect(receiver.received).toHaveLength(2);
    const sent = `{"id":"${created!.id}",${legacy.slice(1)}`;
    for (const got of receiver.received) {
      expect(got.raw.toString("utf8")).toBe(sent);
      expect(verifyWebhook(got.raw, got.headers as Record<string, string>, hook.secret)).toMatchObject({
        id: created!.id,
        deliveryId: created!.id,
        payload: { accountDid: "did:antelope:sandbox:legacy" },
      });
    }
    // The stored body is left as it was: the id is put in front at every send, the same way.
    expect((await rows(org.orgId))[0]).toMatchObject({ status: "delivered", body: legacy });
  });

  it("one slow receiver does not hold up another tenant's deliveries", async () => {
    const slow = await startReceiver(() => "hang");
    const fast = await startReceiver(() => 200);
    const a = await orgWithHook(slow);
    const b = await orgWithHook(fast);
    for (let i = 0; i < 12; i++) await emit(a.org.orgId, "account.unlocked", { accountDid: `did:antelope:sandbox:slow${i}` });
    await emit(b.org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:fast" });
    await dispatchOutboxEvents(db, { orgId: a.org.orgId });
    await dispatchOutboxEvents(db, { orgId: b.org.orgId });
    // One worker serving both organizations, as in production (limited to them: tests share the database).
    const worker = createDeliveryWorker({ orgIds: [a.org.orgId, b.org.orgId], concurrency: 8, perWebhook: 4 });
    const started = Date.now();
    await worker.tick(db);
    await fast.waitFor(1, TIMEOUT_MS);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
    await driveWebhooks(db, b.org.orgId, settled(b.org.orgId, "delivered"), { timeoutMs: TIMEOUT_MS / 2 });
    await worker.tick(db);
    await slow.waitFor(4, TIMEOUT_MS / 2);
    // The slow receiver holds at most perWebhook attempts at once, whatever else is due.
    expect(worker.inFlight()).toBe(4);
    expect(slow.received.length).toBe(4);
    await worker.drain();
  });
});

describe("every event of the spec arrives with its payload fields", () => {
  const events: Array<[EventName, Record<string, string>]> = [
    ["account.created", { accountDid: "did:antelope:sandbox:carol", lifecycle: "provisional" }],
    ["kyc.approved", { personDid: "did:web:localhost:people:5b0f3c1e-4d5f-4a7b-9c1d-2e3f4a5b6c7d", level: "basic-kyc" }],
    [
      "identity.bound",
      {
        accountDid: "did:antelope:sandbox:carol",
        personDid: "did:web:localhost:people:5b0f3c1e-4d5f-4a7b-9c1d-2e3f4a5b6c7d",
        bindingVcHash: "ab".repeat(32),
      },
    ],
    ["account.unlocked", { accountDid: "did:antelope:sandbox:carol" }],
    ["aml.sanctions_hit", { personDid: "did:web:localhost:people:5b0f3c1e-4d5f-4a7b-9c1d-2e3f4a5b6c7d", severity: "critical" }],
  ];

  it('delivers all five to a ["*"] webhook, exactly as emitted', async () => {
    const receiver = await startReceiver();
    const { org, hook } = await orgWithHook(receiver);
    for (const [event, payload] of events) await emit(org.orgId, event, payload);
    await driveWebhooks(db, org.orgId, settled(org.orgId, "delivered", 5));
    const got = receiver.received.map((r) => verifyWebhook(r.raw, r.headers as Record<string, string>, hook.secret));
    for (const [event, payload] of events) {
      const one = got.filter((g) => g.event === event);
      expect(one, event).toHaveLength(1);
      expect(one[0]!.payload).toEqual(payload);
      expect(one[0]!.tenantId).toBe(org.orgId);
      expect(Date.parse(one[0]!.createdAt)).not.toBeNaN();
    }
  });

  it("sends only subscribed events; an unknown name is kept and never fires", async () => {
    const receiver = await startReceiver();
    const { org, api } = await orgWithHook(receiver, ["kyc.approved", "no.such_event"]);
    for (const [event, payload] of events) await emit(org.orgId, event, payload);
    await driveWebhooks(db, org.orgId, settled(org.orgId, "delivered", 1));
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, dispatchedAt: null } })).toBe(0);
    expect(receiver.received.map((r) => r.headers["x-bi-event"])).toEqual(["kyc.approved"]);
    expect((await rows(org.orgId)).map((d) => d.event)).toEqual(["kyc.approved"]);
    expect((await api.get("/v1/admin/webhooks")).body.webhooks[0].events).toEqual(["kyc.approved", "no.such_event"]);
  });

  it("account.created from a real POST /v1/accounts/free", async () => {
    const receiver = await startReceiver();
    const { org, api, hook } = await orgWithHook(receiver, ["account.created"]);
    const { freshPublicKey } = await import("@/server/testing/route-fixtures");
    const created = await api.post("/v1/accounts/free", { ownerPublicKey: freshPublicKey() });
    expect(created.status, created.text).toBe(201);
    await driveWebhooks(db, org.orgId, settled(org.orgId, "delivered"));
    const got = verifyWebhook(receiver.received[0]!.raw, receiver.received[0]!.headers as Record<string, string>, hook.secret);
    const account = await db.account.findFirstOrThrow({ where: { orgId: org.orgId } });
    expect(got).toMatchObject({
      event: "account.created",
      tenantId: org.orgId,
      payload: { accountDid: account.did, lifecycle: account.lifecycle },
    });
    expect(Object.keys(got.payload).sort()).toEqual(["accountDid", "lifecycle"]);
  });

  it("a webhook registered after an event does not receive it", async () => {
    const receiver = await startReceiver();
    const org = await createTestOrg();
    await emit(org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:early" });
    const res = await client(url, org.apiKey).post("/v1/admin/webhooks", { url: receiver.url, events: ["*"] });
    expect(res.status).toBe(201);
    await emit(org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:later" });
    await driveWebhooks(db, org.orgId, settled(org.orgId, "delivered"));
    expect(receiver.received.map((r) => JSON.parse(r.raw.toString()).payload.accountDid)).toEqual(["did:antelope:sandbox:later"]);
  });
});
