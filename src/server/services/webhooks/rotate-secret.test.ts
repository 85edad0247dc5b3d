import { beforeAll, describe, expect, it } from "vitest";
import { type Db, getDb } from "@/server/db/client";
import { emitEvent } from "@/server/platform/outbox";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { driveWebhooks, webhookTestEnv } from "@/server/testing/webhook-drive";
import { startReceiver } from "@/server/testing/webhook-receiver";
import { verifyWebhook } from "@/webhooks/verify";

// Rotating a webhook's signing secret with an overlap (docs/webhooks.md, "Rotating the secret"):
// while it lasts, receivers holding the old secret and receivers holding the new one both verify.

let db: Db;
let url: string;

beforeAll(async () => {
  webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_BACKOFF_BASE_MS: "50", WEBHOOK_TIMEOUT_MS: "800" });
  db = await getDb();
  url = (await testServer()).url;
});

const verifies = (raw: Buffer, headers: Record<string, unknown>, secret: string) => {
  try {
    verifyWebhook(raw, headers as Record<string, string>, secret);
    return true;
  } catch {
    return false;
  }
};

describe("webhook secret rotation", () => {
  it("signs with both secrets during the overlap, the new one alone after it, and shows the new secret once", async () => {
    const receiver = await startReceiver();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const registered = await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["*"] });
    expect(registered.status).toBe(201);
    const hookId = registered.body.id as string;
    const oldSecret = registered.body.secret as string;

    const rotated = await api.post(`/v1/admin/webhooks/${hookId}/rotate-secret`, { overlapHours: 24 });
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    const until = Date.parse(rotated.body.previousSecretValidUntil);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const listed = (await api.get("/v1/admin/webhooks")).body.webhooks.find((w: { id: string }) => w.id === hookId);
    expect(listed.previousSecretValidUntil).toBe(rotated.body.previousSecretValidUntil);
    expect(JSON.stringify(listed)).not.toContain(newSecret);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "webhook.secret_rotated", subject: hookId } });
    expect(JSON.stringify(audit.data)).not.toContain("whsec_");

    // During the overlap: a receiver holding only the old secret and one holding only the new one both verify.
    await db.$transaction((tx) => emitEvent(tx, org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:rot1" }));
    await driveWebhooks(db, org.orgId, () => receiver.received.length >= 1);
    const during = receiver.received[0]!;
    expect(String(during.headers["x-bi-signature"]).split(" ")).toHaveLength(2);
    expect(verifies(during.raw, during.headers, oldSecret)).toBe(true);
    expect(verifies(during.raw, during.headers, newSecret)).toBe(true);
    expect(verifies(during.raw, during.headers, "whsec_someone_else")).toBe(false);

    // After the overlap: the new secret alone.
    await db.webhook.update({ where: { id: hookId }, data: { previousSecretUntil: new Date(Date.now() - 1000) } });
    await db.$transaction((tx) => emitEvent(tx, org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:rot2" }));
    await driveWebhooks(db, org.orgId, () => receiver.received.length >= 2);
    const after = receiver.received[1]!;
    expect(String(after.headers["x-bi-signature"]).split(" ")).toHaveLength(1);
    expect(verifies(after.raw, after.headers, newSecret)).toBe(true);
    expect(verifies(after.raw, after.headers, oldSecret)).toBe(false);
    expect(
      (await api.get("/v1/admin/webhooks")).body.webhooks.find((w: { id: string }) => w.id === hookId).previousSecretValidUntil,
    ).toBeNull();
  });

  it("rotating twice keeps only the two newest secrets; no overlap signs with the new one at once; a deactivated webhook is refused", async () => {
    const receiver = await startReceiver();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const first = await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["*"] });
    const id = first.body.id as string;
    const second = await api.post(`/v1/admin/webhooks/${id}/rotate-secret`, {});
    const third = await api.post(`/v1/admin/webhooks/${id}/rotate-secret`, {});
    expect(third.status).toBe(200);
    const deliver = async (n: number, did: string) => {
      await db.$transaction((tx) => emitEvent(tx, org.orgId, "account.unlocked", { accountDid: did }));
      await driveWebhooks(db, org.orgId, () => receiver.received.length >= n);
      return receiver.received[n - 1]!;
    };
    const overlapping = await deliver(1, "did:antelope:sandbox:rot3");
    expect(verifies(overlapping.raw, overlapping.headers, third.body.secret)).toBe(true);
    expect(verifies(overlapping.raw, overlapping.headers, second.body.secret)).toBe(true);
    expect(verifies(overlapping.raw, overlapping.headers, first.body.secret)).toBe(false);

    const fourth = await api.post(`/v1/admin/webhooks/${id}/rotate-secret`, { overlapHours: 0 });
    expect(fourth.body.previousSecretValidUntil).toBeNull();
    const alone = await deliver(2, "did:antelope:sandbox:rot4");
    expect(verifies(alone.raw, alone.headers, fourth.body.secret)).toBe(true);
    expect(verifies(alone.raw, alone.headers, third.body.secret)).toBe(false);

    expect((await api.post(`/v1/admin/webhooks/${id}/rotate-secret`, { overlapHours: 169 })).status).toBe(400);
    expect((await api.delete(`/v1/admin/webhooks/${id}`)).status).toBe(200);
    const refused = await api.post(`/v1/admin/webhooks/${id}/rotate-secret`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.reason).toBe("webhook_inactive");
  });
});
