import { beforeAll, describe, expect, it } from "vitest";
import { type Db, getDb } from "@/server/db/client";
import { emitEvent } from "@/server/platform/outbox";
import { runRecoverJobs } from "@/server/services/webhooks";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { driveWebhooks, webhookTestEnv } from "@/server/testing/webhook-drive";
import { startReceiver } from "@/server/testing/webhook-receiver";
import { verifyWebhook } from "@/webhooks/verify";

// Recovering an endpoint's failed and dead deliveries (docs/webhooks.md, "Recovering after an outage").

let db: Db;
let url: string;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  webhookTestEnv({
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_BACKOFF_BASE_MS: "20",
    WEBHOOK_TIMEOUT_MS: "800",
    WEBHOOK_MAX_ATTEMPTS: "2",
  });
  db = await getDb();
  url = (await testServer()).url;
});

/** An organization whose receiver answers 503 while `state.up` is false. */
async function setup() {
  const state = { up: true };
  const receiver = await startReceiver(() => (state.up ? 204 : 503));
  const org = await createTestOrg();
  const api = client(url, org.apiKey);
  const reg = await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["*"] });
  expect(reg.status, reg.text).toBe(201);
  return { state, receiver, org, api, hookId: reg.body.id as string, secret: reg.body.secret as string };
}

async function emit(orgId: string, n: number, prefix: string) {
  for (let i = 0; i < n; i++) {
    await db.$transaction((tx) => emitEvent(tx, orgId, "account.unlocked", { accountDid: `did:antelope:sandbox:${prefix}${i}` }));
    // Distinct event times, so "in order" has one meaning.
    await new Promise((r) => setTimeout(r, 3));
  }
}

const statuses = async (orgId: string) => db.webhookDelivery.findMany({ where: { orgId }, orderBy: [{ eventAt: "asc" }, { id: "asc" }] });

/** Moves every delivery (and its event time) of the organization `ms` into the past. */
async function shiftBack(orgId: string, ms: number) {
  await db.$executeRaw`UPDATE webhook_deliveries SET "createdAt" = "createdAt" - ${ms} * interval '1 millisecond',
    "eventAt" = "eventAt" - ${ms} * interval '1 millisecond' WHERE "orgId" = ${orgId}::uuid`;
}

describe("webhook recover", () => {
  it("a receiver down for a day gets every dead delivery exactly once, in event order, from one recover", async () => {
    const { state, receiver, org, api, hookId, secret } = await setup();
    await emit(org.orgId, 1, "before");
    await driveWebhooks(db, org.orgId, async () => (await statuses(org.orgId)).every((d) => d.status === "delivered"));
    const deliveredBefore = receiver.received.length;

    state.up = false;
    await emit(org.orgId, 6, "down");
    await driveWebhooks(db, org.orgId, async () => (await statuses(org.orgId)).filter((d) => d.status === "dead").length === 6);
    await shiftBack(org.orgId, DAY_MS);
    const dead = (await statuses(org.orgId)).filter((d) => d.status === "dead");
    expect(dead).toHaveLength(6);
    const before = receiver.received.length;

    state.up = true;
    const since = new Date(Date.now() - DAY_MS - 60_000).toISOString();
    const asked = await api.post(`/v1/admin/webhooks/${hookId}/recover`, { since });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body).toMatchObject({ webhookId: hookId, state: "queued", total: 6, done: 0, since: new Date(since).toISOString() });
    const again = await api.post(`/v1/admin/webhooks/${hookId}/recover`, { since });
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(asked.body.id);

    await runRecoverJobs(db, { orgId: org.orgId, limit: 5 });
    const resent = receiver.received.slice(before);
    expect(resent.map((r) => r.deliveryId)).toEqual(dead.map((d) => d.id));
    for (const r of resent) expect(verifyWebhook(r.raw, r.headers as Record<string, string>, secret).event).toBe("account.unlocked");
    // The delivery that had arrived before the outage is not sent again.
    expect(receiver.received.slice(0, deliveredBefore)).toHaveLength(1);
    expect((await statuses(org.orgId)).every((d) => d.status === "delivered")).toBe(true);

    const job = await api.get(`/v1/admin/webhooks/${hookId}/recover/${asked.body.id}`);
    expect(job.body).toMatchObject({ state: "completed", total: 6, done: 6, delivered: 6 });
    expect(job.body.completedAt).not.toBeNull();
    // Asked again once completed: the same job, and nothing is sent.
    const third = await api.post(`/v1/admin/webhooks/${hookId}/recover`, { since });
    expect(third.body.id).toBe(asked.body.id);
    await runRecoverJobs(db, { orgId: org.orgId, limit: 5 });
    expect(receiver.received.length).toBe(before + 6);

    const audit = await db.auditEntry.findMany({
      where: { orgId: org.orgId, action: { startsWith: "webhook.recover" } },
      orderBy: { seq: "asc" },
    });
    expect(audit.map((a) => a.action)).toEqual(["webhook.recover_requested", "webhook.recover_completed"]);
    expect((await api.get(`/v1/admin/webhooks/${hookId}/recover`)).body.jobs.map((j: { id: string }) => j.id)).toEqual([asked.body.id]);
    // The list's health: seven delivered in the last 7 days (the six were created "a day ago"), the last attempt a success.
    const hook = (await api.get("/v1/admin/webhooks")).body.webhooks.find((w: { id: string }) => w.id === hookId);
    expect(hook).toMatchObject({ state: "active", failingSince: null, recent: { delivered: 7, failed: 0, dead: 0, successRate: 1 } });
    expect(Date.parse(hook.lastSuccessAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("only [since, until) is re-sent; another range while one is queued is refused; bad input and other organizations write nothing", async () => {
    const { state, receiver, org, api, hookId } = await setup();
    state.up = false;
    await emit(org.orgId, 4, "r");
    await driveWebhooks(db, org.orgId, async () => (await statuses(org.orgId)).filter((d) => d.status === "dead").length === 4);
    // Two deliveries two days back, two one day back.
    const rows = await statuses(org.orgId);
    await shiftBack(org.orgId, DAY_MS);
    await db.$executeRaw`UPDATE webhook_deliveries SET "createdAt" = "createdAt" - interval '1 day', "eventAt" = "eventAt" - interval '1 day'
      WHERE id = ANY(${rows.slice(0, 2).map((r) => r.id)}::uuid[])`;
    state.up = true;
    const before = receiver.received.length;

    const since = new Date(Date.now() - 1.5 * DAY_MS).toISOString();
    const until = new Date(Date.now() - 0.5 * DAY_MS).toISOString();
    const asked = await api.post(`/v1/admin/webhooks/${hookId}/recover`, { since, until });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body.total).toBe(2);
    const other = await api.post(`/v1/admin/webhooks/${hookId}/recover`, { since: new Date(Date.now() - 3 * DAY_MS).toISOString() });
    expect(other.status).toBe(409);
    expect(other.body.error.details).toMatchObject({ reason: "recover_running", jobId: asked.body.id });

    const jobs = await db.webhookRecoverJob.count({ where: { webhookId: hookId } });
    const audits = await db.auditEntry.count({ where: { orgId: org.orgId } });
    const bad = [
      { since: "yesterday" },
      { since, until: since },
      { since, extra: 1 },
      { since: new Date(Date.now() + DAY_MS).toISOString() },
    ];
    for (const body of bad) {
      const res = await api.post(`/v1/admin/webhooks/${hookId}/recover`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
    const stranger = client(url, (await createTestOrg()).apiKey);
    expect((await stranger.post(`/v1/admin/webhooks/${hookId}/recover`, { since })).status).toBe(404);
    expect((await stranger.get(`/v1/admin/webhooks/${hookId}/recover/${asked.body.id}`)).status).toBe(404);
    expect(await db.webhookRecoverJob.count({ where: { webhookId: hookId } })).toBe(jobs);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId } })).toBe(audits);

    await runRecoverJobs(db, { orgId: org.orgId, limit: 5 });
    expect(receiver.received.slice(before).map((r) => r.deliveryId)).toEqual(rows.slice(2).map((r) => r.id));
    const after = await statuses(org.orgId);
    expect(
      after
        .filter((d) => d.status === "dead")
        .map((d) => d.id)
        .sort(),
    ).toEqual(
      rows
        .slice(0, 2)
        .map((r) => r.id)
        .sort(),
    );
  });

  it("a webhook switched off during a recover: the job completes without sending, its progress as it stood", async () => {
    const { state, receiver, org, api, hookId } = await setup();
    state.up = false;
    await emit(org.orgId, 2, "off");
    await driveWebhooks(db, org.orgId, async () => (await statuses(org.orgId)).filter((d) => d.status === "dead").length === 2);
    const before = receiver.received.length;
    const asked = await api.post(`/v1/admin/webhooks/${hookId}/recover`, { since: new Date(Date.now() - DAY_MS).toISOString() });
    expect(asked.body.total).toBe(2);
    expect((await api.post(`/v1/admin/webhooks/${hookId}/disable`)).status).toBe(200);
    await runRecoverJobs(db, { orgId: org.orgId });
    expect(receiver.received.length).toBe(before);
    const job = await api.get(`/v1/admin/webhooks/${hookId}/recover/${asked.body.id}`);
    expect(job.body).toMatchObject({ state: "completed", total: 2, done: 0, delivered: 0 });
    const done = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "webhook.recover_completed" } });
    expect(done.data).toMatchObject({ stopped: "webhook_inactive", done: 0 });
  });
});
