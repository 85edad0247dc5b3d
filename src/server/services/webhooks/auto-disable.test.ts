import { beforeAll, describe, expect, it } from "vitest";
import { type Db, getDb } from "@/server/db/client";
import { emitEvent } from "@/server/platform/outbox";
import { checkFailingWebhooks, runRecoverJobs } from "@/server/services/webhooks";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { driveWebhooks, webhookTestEnv } from "@/server/testing/webhook-drive";
import { startReceiver } from "@/server/testing/webhook-receiver";

// Auto-disable with notice (docs/webhooks.md, "Failing endpoints are disabled"), with the default
// window of 120 hours and time moved by rewriting `failingSince`.

let db: Db;
let url: string;
const HOUR = 3_600_000;

beforeAll(async () => {
  webhookTestEnv({
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_BACKOFF_BASE_MS: "20",
    WEBHOOK_TIMEOUT_MS: "800",
    WEBHOOK_MAX_ATTEMPTS: "2",
  });
  delete process.env.WEBHOOK_DISABLE_AFTER_HOURS;
  db = await getDb();
  url = (await testServer()).url;
});

const tag = () => Math.random().toString(36).slice(2, 8);
const emit = (orgId: string, did: string) =>
  db.$transaction((tx) => emitEvent(tx, orgId, "account.unlocked", { accountDid: `did:antelope:sandbox:${did}` }));
const mail = (orgId: string) =>
  db.devOutboxMessage.findMany({ where: { orgId, channel: "email" }, orderBy: [{ createdAt: "asc" }, { to: "asc" }] });
const failingFor = (hookId: string, hours: number) =>
  db.webhook.update({ where: { id: hookId }, data: { failingSince: new Date(Date.now() - hours * HOUR) } });

describe("failing endpoints", () => {
  it("an always-failing endpoint: warned at half the window, disabled at the end, each email once to owners and admins; enabling offers the recover", async () => {
    const state = { up: false };
    const receiver = await startReceiver(() => (state.up ? 204 : 500));
    const org = await createTestOrg();
    const t = tag();
    const [owner, admin, viewer] = [`own-${t}@example.test`, `adm-${t}@example.test`, `vie-${t}@example.test`];
    await db.consoleMember.createMany({
      data: [
        { orgId: org.orgId, email: owner, role: "owner" },
        { orgId: org.orgId, email: admin, role: "admin" },
        { orgId: org.orgId, email: viewer, role: "viewer" },
      ],
    });
    const api = client(url, org.apiKey);
    const hookId = (await api.post("/v1/admin/webhooks", { url: `${receiver.url}?token=s3cr3t`, events: ["*"] })).body.id as string;
    await emit(org.orgId, "f1");
    await driveWebhooks(db, org.orgId, async () => (await db.webhookDelivery.count({ where: { orgId: org.orgId, status: "dead" } })) === 1);
    const view = async () => (await api.get("/v1/admin/webhooks")).body.webhooks.find((w: { id: string }) => w.id === hookId);
    expect(await view()).toMatchObject({ state: "failing", active: true, lastSuccessAt: null, disabledAt: null });

    // Not yet half the window: nothing.
    await failingFor(hookId, 59);
    expect(await checkFailingWebhooks(db, { orgId: org.orgId })).toEqual({ warned: 0, disabled: 0, emails: 0 });
    // Past half: one warning to the owner and the admin, once however often the check runs.
    await failingFor(hookId, 61);
    expect(await checkFailingWebhooks(db, { orgId: org.orgId })).toEqual({ warned: 1, disabled: 0, emails: 2 });
    await checkFailingWebhooks(db, { orgId: org.orgId });
    await checkFailingWebhooks(db, { orgId: org.orgId, now: new Date(Date.now() + 30 * HOUR) });
    const warnings = await mail(org.orgId);
    expect(warnings.map((m) => m.to).sort()).toEqual([admin, owner].sort());
    expect(warnings[0]!.subject).toMatch(/is failing; it will be disabled on/);
    expect(warnings[0]!.body).toContain(hookId);
    expect(warnings.map((m) => `${m.subject}${m.body}`).join()).not.toContain("s3cr3t");

    // Past the whole window: disabled, and a second email to each.
    await failingFor(hookId, 121);
    expect(await checkFailingWebhooks(db, { orgId: org.orgId })).toEqual({ warned: 0, disabled: 1, emails: 2 });
    await checkFailingWebhooks(db, { orgId: org.orgId });
    await checkFailingWebhooks(db, { orgId: org.orgId, now: new Date(Date.now() + 500 * HOUR) });
    const all = await mail(org.orgId);
    expect(all).toHaveLength(4);
    expect(
      all
        .filter((m) => /was disabled/.test(m.subject ?? ""))
        .map((m) => m.to)
        .sort(),
    ).toEqual([admin, owner].sort());
    const disabled = await view();
    expect(disabled).toMatchObject({ state: "disabled", active: false, disabledReason: "failing" });
    const failingSince = disabled.failingSince as string;
    const audit = await db.auditEntry.findMany({ where: { orgId: org.orgId, subject: hookId }, orderBy: { seq: "asc" } });
    expect(audit.map((a) => a.action)).toEqual(["webhook.created", "webhook.failing_notice", "webhook.disabled"]);
    expect(audit[2]!.actor).toBe("system:webhook-health");

    // While disabled nothing is sent, but events are kept as dead deliveries.
    await emit(org.orgId, "f2");
    const sentBefore = receiver.received.length;
    await driveWebhooks(db, org.orgId, async () => (await db.webhookDelivery.count({ where: { orgId: org.orgId } })) === 2);
    expect(receiver.received.length).toBe(sentBefore);

    // The receiver is fixed; enabling answers where to recover from, and the recover sends both, in order, once.
    state.up = true;
    const enabled = await api.post(`/v1/admin/webhooks/${hookId}/enable`);
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.suggestedRecoverSince).toBe(failingSince);
    expect(enabled.body.webhook).toMatchObject({ state: "active", active: true, disabledAt: null, failingSince: null });
    const dead = await db.webhookDelivery.findMany({ where: { orgId: org.orgId }, orderBy: { eventAt: "asc" } });
    const job = await api.post(`/v1/admin/webhooks/${hookId}/recover`, { since: enabled.body.suggestedRecoverSince });
    expect(job.body.total).toBe(2);
    await runRecoverJobs(db, { orgId: org.orgId });
    expect(receiver.received.slice(sentBefore).map((r) => r.deliveryId)).toEqual(dead.map((d) => d.id));
    expect(await view()).toMatchObject({ state: "active", failingSince: null });
    expect((await view()).lastSuccessAt).not.toBeNull();
    expect(await mail(org.orgId)).toHaveLength(4);
  });

  it("disable and enable by hand; a success ends a failing stretch before any notice; deactivated and foreign webhooks are refused", async () => {
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const receiver = await startReceiver(() => 204);
    const hookId = (await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["*"] })).body.id as string;
    await failingFor(hookId, 100);
    await emit(org.orgId, "ok1");
    await driveWebhooks(
      db,
      org.orgId,
      async () => (await db.webhookDelivery.count({ where: { orgId: org.orgId, status: "delivered" } })) === 1,
    );
    expect(await checkFailingWebhooks(db, { orgId: org.orgId })).toEqual({ warned: 0, disabled: 0, emails: 0 });

    const off = await api.post(`/v1/admin/webhooks/${hookId}/disable`);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ state: "disabled", disabledReason: "manual", active: false });
    expect((await api.post(`/v1/admin/webhooks/${hookId}/disable`)).body.disabledAt).toBe(off.body.disabledAt);
    const stranger = client(url, (await createTestOrg()).apiKey);
    expect((await stranger.post(`/v1/admin/webhooks/${hookId}/enable`)).status).toBe(404);
    expect((await stranger.post(`/v1/admin/webhooks/${hookId}/disable`)).status).toBe(404);
    const on = await api.post(`/v1/admin/webhooks/${hookId}/enable`);
    expect(on.body.suggestedRecoverSince).toBe(off.body.disabledAt);
    const again = await api.post(`/v1/admin/webhooks/${hookId}/enable`);
    expect(again.body.suggestedRecoverSince).toBeNull();
    const actions = (await db.auditEntry.findMany({ where: { orgId: org.orgId, subject: hookId }, orderBy: { seq: "asc" } })).map(
      (a) => a.action,
    );
    expect(actions).toEqual(["webhook.created", "webhook.disabled", "webhook.enabled"]);

    // A disabled webhook can still be deleted; a deleted one cannot be enabled.
    await api.post(`/v1/admin/webhooks/${hookId}/disable`);
    expect((await api.delete(`/v1/admin/webhooks/${hookId}`)).body.state).toBe("deactivated");
    const refused = await api.post(`/v1/admin/webhooks/${hookId}/enable`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.reason).toBe("webhook_inactive");
  });
});
