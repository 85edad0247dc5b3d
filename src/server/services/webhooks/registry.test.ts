import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { open, seal } from "@/server/crypto/secret-box";
import { type Db, getDb } from "@/server/db/client";
import { type ResolvedAddress, setWebhookResolver } from "@/server/net/ssrf-request";
import { dispatchOutboxEvents } from "@/server/services/webhooks";
import { MAX_ACTIVE_WEBHOOKS } from "@/server/services/webhooks/registry";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { REFUSED_ADDRESSES, urlHostOf } from "@/server/testing/ssrf-table";
import { driveWebhooks, emitUnlocked, webhookTestEnv } from "@/server/testing/webhook-drive";
import { startReceiver } from "@/server/testing/webhook-receiver";
import { verifyWebhook } from "@/webhooks/verify";

let db: Db;
let url: string;
const PUBLIC_IP = "93.184.215.14";

beforeAll(async () => {
  webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "false", WEBHOOK_BACKOFF_BASE_MS: "60000", WEBHOOK_TIMEOUT_MS: "800" });
  db = await getDb();
  url = (await testServer()).url;
});

afterEach(() => {
  setWebhookResolver(undefined);
  webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "false" });
});

/** Answers `answer()` for every host name: no real DNS is ever asked. */
const fakeDns = (answer: () => string | string[]) => {
  const calls: string[] = [];
  setWebhookResolver(async (host) => {
    calls.push(host);
    return ([] as string[]).concat(answer()).map((address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 }));
  });
  return calls;
};

describe("registration", () => {
  it("registers a public HTTPS receiver; the secret is answered once and stored sealed", async () => {
    const calls = fakeDns(() => PUBLIC_IP);
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const res = await api.post("/v1/admin/webhooks", {
      url: "https://hooks.example.test/bi",
      events: ["account.created", "kyc.approved", "account.created"],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      url: "https://hooks.example.test/bi",
      events: ["account.created", "kyc.approved"],
      active: true,
      deactivatedAt: null,
    });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(calls).toEqual(["hooks.example.test"]);
    const row = await db.webhook.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.secretEnc).not.toContain(res.body.secret);
    expect(open(row.secretEnc)).toBe(res.body.secret);
    const list = await api.get("/v1/admin/webhooks");
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toHaveLength(1);
    expect(list.text).not.toContain(res.body.secret);
    expect(list.body.webhooks[0]).not.toHaveProperty("secret");
    const audit = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "webhook.created" } });
    expect(audit.data).toEqual({ host: "hooks.example.test", events: ["account.created", "kyc.approved"] });
  });

  it('stores ["*"] for a list containing *, and accepts unknown event names', async () => {
    fakeDns(() => PUBLIC_IP);
    const api = client(url, (await createTestOrg()).apiKey);
    expect((await api.post("/v1/admin/webhooks", { url: "https://a.example.test/", events: ["kyc.approved", "*"] })).body.events).toEqual([
      "*",
    ]);
    const unknown = await api.post("/v1/admin/webhooks", { url: "https://a.example.test/", events: ["payment.refunded"] });
    expect(unknown.status).toBe(201);
    expect(unknown.body.events).toEqual(["payment.refunded"]);
  });

  it.each([
    [{ url: "https://a.example.test/", events: [] }, "body.events"],
    [{ url: "https://a.example.test/", events: ["Not An Event"] }, "body.events.0"],
    [{ url: "https://a.example.test/", events: ["*"], secret: "mine" }, "body"],
    [{ events: ["*"] }, "body.url"],
  ])("refuses a malformed body %j", async (body, path) => {
    const api = client(url, (await createTestOrg()).apiKey);
    const res = await api.post("/v1/admin/webhooks", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  const refusedUrls = [
    "http://hooks.example.test/x",
    "https://10.0.0.1/x",
    "https://172.16.5.4/x",
    "https://192.168.1.1/x",
    "https://127.0.0.1/x",
    "https://[::1]/x",
    "https://localhost/x",
    "https://169.254.169.254/latest/meta-data",
    "https://[fe80::1]/x",
    "https://[fc00::1]/x",
    "https://100.64.0.1/x",
    "https://0.0.0.0/x",
    "https://224.0.0.1/x",
    "https://[ff02::1]/x",
    "https://[::ffff:127.0.0.1]/x",
    "https://[::ffff:a9fe:a9fe]/x",
    "https://[64:ff9b::7f00:1]/x",
    "https://[64:ff9b::a00:1]/x",
    "https://2130706433/x",
    "https://0x7f.0.0.1/x",
  ];
  it.each(refusedUrls)("refuses %s at registration, writing nothing", async (target) => {
    fakeDns(() => PUBLIC_IP);
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).post("/v1/admin/webhooks", { url: target, events: ["*"] });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: { reason: "url_not_allowed" } });
    expect(await db.webhook.count({ where: { orgId: org.orgId } })).toBe(0);
  });

  it.each(REFUSED_ADDRESSES)("refuses %s (%s) at registration, as a literal and behind a host name", async (ip) => {
    fakeDns(() => ip);
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    for (const target of [`https://${urlHostOf(ip)}/x`, "https://inside.example.test/x"]) {
      const res = await api.post("/v1/admin/webhooks", { url: target, events: ["*"] });
      expect(res.status, target).toBe(400);
      expect(res.body.error.details.reason).toBe("url_not_allowed");
    }
    expect(await db.webhook.count({ where: { orgId: org.orgId } })).toBe(0);
  });

  it.each([["10.0.0.5"], ["127.0.0.1"], ["169.254.169.254"], ["::ffff:10.0.0.5"], ["fd00::5"], ["100.64.1.1"], [[PUBLIC_IP, "10.0.0.5"]]])(
    "refuses a host name resolving to %j at registration",
    async (answer) => {
      fakeDns(() => answer);
      const org = await createTestOrg();
      const res = await client(url, org.apiKey).post("/v1/admin/webhooks", { url: "https://inside.example.test/x", events: ["*"] });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain("refused address range");
      expect(await db.webhook.count({ where: { orgId: org.orgId } })).toBe(0);
    },
  );

  it("names the sandbox switch when it would admit the receiver (never for link-local)", async () => {
    const api = client(url, (await createTestOrg()).apiKey);
    const hint = "WEBHOOK_ALLOW_PRIVATE_URLS=true";
    for (const target of ["http://hooks.example.com/x", "https://127.0.0.1/x", "https://10.0.0.5/x"]) {
      const res = await api.post("/v1/admin/webhooks", { url: target, events: ["*"] });
      expect(res.status, target).toBe(400);
      expect(res.body.error.message, target).toContain(hint);
    }
    const linkLocal = await api.post("/v1/admin/webhooks", { url: "https://169.254.169.254/x", events: ["*"] });
    expect(linkLocal.status).toBe(400);
    expect(linkLocal.body.error.message).not.toContain(hint);
  });

  it("refuses a host name that does not resolve", async () => {
    setWebhookResolver(async () => {
      throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    });
    const res = await client(url, (await createTestOrg()).apiKey).post("/v1/admin/webhooks", {
      url: "https://nowhere.example.test/",
      events: ["*"],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("could not be resolved");
  });

  it("with WEBHOOK_ALLOW_PRIVATE_URLS, admits loopback over http but still refuses link-local", async () => {
    webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    const api = client(url, (await createTestOrg()).apiKey);
    expect((await api.post("/v1/admin/webhooks", { url: "http://127.0.0.1:9/hook", events: ["*"] })).status).toBe(201);
    expect((await api.post("/v1/admin/webhooks", { url: "http://10.1.2.3/hook", events: ["*"] })).status).toBe(201);
    for (const bad of ["http://169.254.169.254/", "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://100.64.0.1/"]) {
      expect((await api.post("/v1/admin/webhooks", { url: bad, events: ["*"] })).status, bad).toBe(400);
    }
  });

  it(`allows at most ${MAX_ACTIVE_WEBHOOKS} active webhooks per organization`, async () => {
    fakeDns(() => PUBLIC_IP);
    const org = await createTestOrg();
    await db.webhook.createMany({
      data: Array.from({ length: MAX_ACTIVE_WEBHOOKS }, () => ({
        orgId: org.orgId,
        url: "https://a.example.test/",
        events: ["*"],
        secretEnc: seal("whsec_x"),
      })),
    });
    const res = await client(url, org.apiKey).post("/v1/admin/webhooks", { url: "https://a.example.test/", events: ["*"] });
    expect(res.status).toBe(409);
    expect(res.body.error.details.reason).toBe("webhook_limit");
  });
});

describe("the address is checked again at every attempt", () => {
  it("DNS rebinding: a host public at registration and private at delivery is refused, and nothing connects", async () => {
    const receiver = await startReceiver();
    let answer = PUBLIC_IP;
    fakeDns(() => answer);
    const org = await createTestOrg();
    const hook = await client(url, org.apiKey).post("/v1/admin/webhooks", {
      url: `https://rebind.example.test:${receiver.port}/hook`,
      events: ["*"],
    });
    expect(hook.status).toBe(201);
    const refused = ["127.0.0.1", "10.0.0.5", "169.254.169.254", "::ffff:127.0.0.1", "fd00::1", "100.64.0.1", "64:ff9b::7f00:1", "0.0.0.0"];
    for (const [i, address] of refused.entries()) {
      answer = address;
      await emitUnlocked(db, org.orgId, `rebind${i}`);
      await driveWebhooks(
        db,
        org.orgId,
        async () => (await db.webhookDelivery.count({ where: { orgId: org.orgId, status: "failed" } })) === i + 1,
      );
    }
    const rows = await db.webhookDelivery.findMany({ where: { orgId: org.orgId } });
    expect(rows).toHaveLength(refused.length);
    for (const r of rows) expect(r.lastError).toMatch(/^The host resolves to a refused address range \(\w+\)\.$/);
    expect(receiver.received).toHaveLength(0);
  });

  it("every refused form is refused at delivery too, as a literal and behind a host name, and nothing connects", async () => {
    const receiver = await startReceiver();
    const org = await createTestOrg();
    const byHost = new Map(REFUSED_ADDRESSES.map(([ip], i) => [`r${i}.example.test`, ip]));
    setWebhookResolver(async (host) => [{ address: byHost.get(host)!, family: byHost.get(host)!.includes(":") ? 6 : 4 }]);
    // Written directly, as if registered under another policy or before DNS changed: delivery must not trust registration.
    const urls = REFUSED_ADDRESSES.flatMap(([ip], i) => [
      `https://${urlHostOf(ip)}:${receiver.port}/hook`,
      `https://r${i}.example.test:${receiver.port}/hook`,
    ]);
    await db.webhook.createMany({ data: urls.map((u) => ({ orgId: org.orgId, url: u, events: ["*"], secretEnc: seal("whsec_x") })) });
    await emitUnlocked(db, org.orgId);
    await driveWebhooks(
      db,
      org.orgId,
      async () => (await db.webhookDelivery.count({ where: { orgId: org.orgId, status: "failed" } })) === urls.length,
    );
    const rows = await db.webhookDelivery.findMany({ where: { orgId: org.orgId }, include: { webhook: true } });
    expect(rows).toHaveLength(urls.length);
    for (const r of rows) expect(r.lastError, r.webhook.url).toMatch(/refused address range/);
    expect(receiver.received).toHaveLength(0);
  });

  it("connects to the very address that was checked: a second resolution is never used", async () => {
    webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    const receiver = await startReceiver(() => 200, "127.0.0.1");
    // First answer 127.0.0.1 (where the receiver listens), every later one 127.0.0.2 (nothing listens).
    let next = "127.0.0.1";
    const calls = fakeDns(() => {
      const a = next;
      next = "127.0.0.2";
      return a;
    });
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).post("/v1/admin/webhooks", {
      url: `http://pinned.example.test:${receiver.port}/hook`,
      events: ["*"],
    });
    expect(res.status).toBe(201);
    next = "127.0.0.1";
    calls.length = 0;
    await emitUnlocked(db, org.orgId);
    await driveWebhooks(
      db,
      org.orgId,
      async () => (await db.webhookDelivery.count({ where: { orgId: org.orgId, status: { not: "pending" } } })) === 1,
    );
    const [row] = await db.webhookDelivery.findMany({ where: { orgId: org.orgId } });
    expect(row).toMatchObject({ status: "delivered", lastError: null });
    expect(calls).toEqual(["pinned.example.test"]);
    expect(receiver.received[0]!.headers.host).toBe(`pinned.example.test:${receiver.port}`);
    expect(
      verifyWebhook(receiver.received[0]!.raw, receiver.received[0]!.headers as Record<string, string>, res.body.secret).deliveryId,
    ).toBe(row!.id);
  });
});

describe("a host with several addresses", () => {
  it("tries the checked addresses in turn (an unreachable first one does not fail the attempt)", async () => {
    webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    const receiver = await startReceiver(() => 200, "127.0.0.1");
    fakeDns(() => ["127.0.0.2", "127.0.0.1"]);
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).post("/v1/admin/webhooks", {
      url: `http://multi.example.test:${receiver.port}/hook`,
      events: ["*"],
    });
    expect(res.status).toBe(201);
    await emitUnlocked(db, org.orgId);
    await driveWebhooks(
      db,
      org.orgId,
      async () => (await db.webhookDelivery.count({ where: { orgId: org.orgId, status: { not: "pending" } } })) === 1,
    );
    expect((await db.webhookDelivery.findFirstOrThrow({ where: { orgId: org.orgId } })).status).toBe("delivered");
    expect(receiver.received).toHaveLength(1);
  });
});

describe("deliveries, deactivation and replay", () => {
  async function orgWithDeliveries(n: number) {
    webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const hook = await api.post("/v1/admin/webhooks", { url: "http://127.0.0.1:9/hook", events: ["*"] });
    for (let i = 0; i < n; i++) await emitUnlocked(db, org.orgId, `list${i}`);
    await dispatchOutboxEvents(db, { orgId: org.orgId });
    return { org, api, hookId: hook.body.id as string };
  }

  it("lists the organization's own deliveries, newest first, filtered by status, limit 1 to 100", async () => {
    const { org, api } = await orgWithDeliveries(3);
    const ids = (await db.webhookDelivery.findMany({ where: { orgId: org.orgId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] })).map(
      (d) => d.id,
    );
    await db.webhookDelivery.update({
      where: { id: ids[2]! },
      data: { status: "dead", attempts: 8, lastError: "The receiver answered HTTP 500." },
    });
    const all = await api.get("/v1/admin/webhooks/deliveries");
    expect(all.status).toBe(200);
    expect(all.body.deliveries.map((d: { id: string }) => d.id)).toEqual(ids);
    expect(all.body.deliveries[0]).toMatchObject({ status: "pending", attempts: 0, event: "account.unlocked", lastError: null });
    expect(all.body.deliveries[0]).not.toHaveProperty("body");
    const dead = await api.get("/v1/admin/webhooks/deliveries?status=dead");
    expect(dead.body.deliveries).toEqual([
      expect.objectContaining({
        id: ids[2],
        status: "dead",
        attempts: 8,
        lastError: "The receiver answered HTTP 500.",
        nextAttemptAt: null,
      }),
    ]);
    expect((await api.get("/v1/admin/webhooks/deliveries?limit=2")).body.deliveries).toHaveLength(2);
    for (const q of ["limit=0", "limit=101", "limit=x", "status=sent"])
      expect((await api.get(`/v1/admin/webhooks/deliveries?${q}`)).status, q).toBe(400);
    const other = client(url, (await createTestOrg()).apiKey);
    expect((await other.get("/v1/admin/webhooks/deliveries")).body.deliveries).toEqual([]);
  });

  it("deactivation keeps the webhook and its history, ends waiting deliveries as dead, and is idempotent", async () => {
    const { org, api, hookId } = await orgWithDeliveries(2);
    const res = await api.delete(`/v1/admin/webhooks/${hookId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: hookId, active: false });
    expect(Date.parse(res.body.deactivatedAt)).not.toBeNaN();
    const again = await api.delete(`/v1/admin/webhooks/${hookId}`);
    expect(again.body).toEqual(res.body);
    expect((await api.get("/v1/admin/webhooks")).body.webhooks).toEqual([expect.objectContaining({ id: hookId, active: false })]);
    const rows = await db.webhookDelivery.findMany({ where: { orgId: org.orgId } });
    expect(rows.map((r) => [r.status, r.lastError])).toEqual([
      ["dead", "The webhook was deactivated."],
      ["dead", "The webhook was deactivated."],
    ]);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "webhook.deactivated" } })).toBe(1);
    // New events no longer fan out to it.
    await emitUnlocked(db, org.orgId, "after");
    await dispatchOutboxEvents(db, { orgId: org.orgId });
    expect(await db.webhookDelivery.count({ where: { orgId: org.orgId } })).toBe(2);
    const replay = await api.post(`/v1/admin/webhooks/deliveries/${rows[0]!.id}/replay`);
    expect(replay.status).toBe(409);
    expect(replay.body.error.details.reason).toBe("webhook_inactive");
    expect((await client(url, (await createTestOrg()).apiKey).delete(`/v1/admin/webhooks/${hookId}`)).status).toBe(404);
  });

  it("replay: failed → pending with attempts 0 and audited; payload gone → 409; another organization → 404", async () => {
    const { org, api } = await orgWithDeliveries(2);
    const [a, b] = await db.webhookDelivery.findMany({ where: { orgId: org.orgId }, orderBy: { createdAt: "asc" } });
    await db.webhookDelivery.update({
      where: { id: a!.id },
      data: { status: "failed", attempts: 3, lastError: "x", nextAttemptAt: new Date(Date.now() + 3_600_000) },
    });
    await db.webhookDelivery.update({ where: { id: b!.id }, data: { status: "dead", attempts: 8, body: null } });
    const other = client(url, (await createTestOrg()).apiKey);
    expect((await other.post(`/v1/admin/webhooks/deliveries/${a!.id}/replay`)).status).toBe(404);
    const res = await api.post(`/v1/admin/webhooks/deliveries/${a!.id}/replay`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a!.id, status: "pending", attempts: 0 });
    expect(Date.parse(res.body.nextAttemptAt)).toBeLessThanOrEqual(Date.now() + 1000);
    const row = await db.webhookDelivery.findUniqueOrThrow({ where: { id: a!.id } });
    expect(row.body).toBe(a!.body);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "webhook.delivery_replayed", subject: a!.id } })).toBe(1);
    const gone = await api.post(`/v1/admin/webhooks/deliveries/${b!.id}/replay`);
    expect(gone.status).toBe(409);
    expect(gone.body.error.details.reason).toBe("payload_unavailable");
    expect((await api.post("/v1/admin/webhooks/deliveries/not-a-uuid/replay")).status).toBe(400);
  });
});
