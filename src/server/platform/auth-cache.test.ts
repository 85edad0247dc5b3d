import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../db/client";
import { routes } from "../http/routes";
import { call, client, createTestOrg, servePipeline, testServer } from "../testing/harness";
import { type Instance, startInstance, stopInstance, within } from "../testing/instance";
import { AuthCache, orgChanged } from "./auth-cache";
import { createAuthCache, startInvalidationFeed } from "./auth-cache-listener";

/**
 * A change to a key or an organization takes effect on the instance that made it when
 * its request has answered, and on another instance (its own process, its own cache) within a
 * second. Instance A is this process's test server; instance B is a separate server process.
 */
let b: Instance | undefined;
let A: string;

beforeAll(async () => {
  [b, { url: A }] = await Promise.all([startInstance(), testServer()]);
}, 120_000);

afterAll(async () => {
  await stopInstance(b);
});

const tenant = (base: string, key: string) => call(base, "GET", "/v1/tenant", { key });
const ONE_SECOND = 1_000;

/** A second key of a fresh organization, used (so cached) on both instances. */
async function warmKey(scopes: string[]) {
  const org = await createTestOrg();
  const minted = await client(A, org.apiKey).post("/v1/admin/api-keys", { name: "cached", scopes });
  expect(minted.status).toBe(201);
  const key = minted.body.apiKey as string;
  for (const base of [A, b!.base, A, b!.base]) expect((await tenant(base, key)).status).toBe(200);
  return { org, key, id: minted.body.id as string, admin: client(A, org.apiKey) };
}

describe("key cache invalidation across instances", () => {
  it("refuses a revoked key on the revoking instance at once, and on another instance within a second", async () => {
    const { key, id, admin } = await warmKey(["read"]);
    expect((await admin.delete(`/v1/admin/api-keys/${id}`)).status).toBe(200);
    const here = await tenant(A, key);
    expect(here.status).toBe(401);
    expect(here.body.error.details.reason).toBe("invalid_key");
    const took = await within(ONE_SECOND, async () => (await tenant(b!.base, key)).status === 401);
    expect(took).not.toBeNull();
  });

  it("refuses a rotated-out key at once on the rotating instance", async () => {
    const { key, id, admin } = await warmKey(["read"]);
    expect((await admin.post("/v1/admin/api-keys", { name: "next", scopes: ["read"], revokeKeyId: id })).status).toBe(201);
    expect((await tenant(A, key)).status).toBe(401);
    expect(await within(ONE_SECOND, async () => (await tenant(b!.base, key)).status === 401)).not.toBeNull();
  });

  it("applies a removed scope everywhere within a second, even when the operator changes the row by hand", async () => {
    const { key } = await warmKey(["read", "accounts_write"]);
    const db = await getDb();
    await db.$executeRaw`UPDATE api_keys SET scopes = ARRAY['accounts_write'] WHERE "keyHash" = encode(sha256(convert_to(${key}, 'UTF8')), 'hex')`;
    for (const base of [A, b!.base]) {
      const took = await within(ONE_SECOND, async () => {
        const res = await tenant(base, key);
        return res.status === 403 && res.body.error.details.reason === "missing_scope";
      });
      expect(took, base).not.toBeNull();
    }
  });

  it("applies a narrowed IP allowlist at once on the instance that set it, and within a second on another", async () => {
    const { key, admin } = await warmKey(["read"]);
    const put = await admin.put("/v1/admin/ip-allowlist", { cidrs: ["203.0.113.0/24"] });
    expect(put.status).toBe(200);
    expect((await tenant(A, key)).status).toBe(403);
    expect(await within(ONE_SECOND, async () => (await tenant(b!.base, key)).status === 403)).not.toBeNull();
  });

  it("requires signatures at once on the instance that enabled signing, and within a second on another", async () => {
    const { key, admin } = await warmKey(["read"]);
    expect((await admin.post("/v1/admin/signing/enable")).status).toBe(200);
    const here = await tenant(A, key);
    expect(here.status).toBe(401);
    const took = await within(ONE_SECOND, async () => (await tenant(b!.base, key)).status === 401);
    expect(took).not.toBeNull();
  });

  it("applies a plan change within a second on every instance, and at once where orgChanged is called", async () => {
    const { org, key } = await warmKey(["read"]);
    expect((await tenant(b!.base, key)).headers.get("x-ratelimit-plan-limit")).toBe("120");
    const db = await getDb();
    await db.organization.update({ where: { id: org.orgId }, data: { plan: "growth" } });
    orgChanged(org.orgId); // what the billing service does after an upgrade commits
    expect((await tenant(A, key)).headers.get("x-ratelimit-plan-limit")).toBe("600");
    const took = await within(ONE_SECOND, async () => (await tenant(b!.base, key)).headers.get("x-ratelimit-plan-limit") === "600");
    expect(took).not.toBeNull();
    expect((await tenant(b!.base, key)).body.plan.id).toBe("growth");
  });
});

describe("the key cache itself", () => {
  it("answers repeated requests from memory, and an organization's change from the database again", async () => {
    const { cache, feed } = createAuthCache();
    await feed;
    await within(5_000, async () => cache.enabled);
    expect(cache.enabled).toBe(true);
    const db = await getDb();
    const server = await servePipeline(db, routes, { authCache: cache });
    const base = server.url;
    try {
      const org = await createTestOrg();
      expect((await tenant(base, org.apiKey)).status).toBe(200);
      const misses = cache.misses;
      const hits = cache.hits;
      for (let i = 0; i < 5; i++) expect((await tenant(base, org.apiKey)).status).toBe(200);
      expect(cache.hits - hits).toBe(5);
      expect(cache.misses).toBe(misses);
      // A change written through this process, by any code path (here Prisma directly, no hook):
      // the trigger's NOTIFY reaches the writing session before its COMMIT answers.
      await db.organization.update({ where: { id: org.orgId }, data: { name: "Renamed without a hook" } });
      expect(cache.size).toBe(0);
      expect((await tenant(base, org.apiKey)).body.name).toBe("Renamed without a hook");
      // Another process's change arrives through the dedicated listener.
      const other = await startInstance();
      try {
        // (the other process writes through its own pool: a revocation from its own API)
        const minted = await client(other.base, org.apiKey).post("/v1/admin/api-keys", { name: "from another process", scopes: ["read"] });
        expect(minted.status).toBe(201);
        expect((await tenant(base, minted.body.apiKey)).status).toBe(200);
        expect((await client(other.base, org.apiKey).delete(`/v1/admin/api-keys/${minted.body.id}`)).status).toBe(200);
        expect(await within(ONE_SECOND, async () => (await tenant(base, minted.body.apiKey)).status === 401)).not.toBeNull();
      } finally {
        await stopInstance(other);
      }
    } finally {
      await server.close();
      await (await feed).stop();
      cache.dispose();
    }
  });

  it("reads every key from the database while its invalidation feed is down", async () => {
    const cache = new AuthCache();
    const feed = startInvalidationFeed(cache, { databaseUrl: "postgresql://nobody@127.0.0.1:1/none" });
    try {
      const load = async () => ({ key: { id: "k" }, org: { id: "o" } }) as never;
      await cache.lookup("h", load);
      await cache.lookup("h", load);
      expect(cache.enabled).toBe(false);
      expect(cache.hits).toBe(0);
      expect(cache.misses).toBe(2);
    } finally {
      await feed.stop();
      cache.dispose();
    }
  });

  it("never stores a look-up that raced an invalidation", async () => {
    const cache = new AuthCache();
    cache.setLive(true);
    const entry = { key: { id: "k" }, org: { id: "o" } } as never;
    await cache.lookup("h", async () => {
      cache.invalidateOrg("o"); // the revocation commits while this read is under way
      return entry;
    });
    expect(cache.size).toBe(0);
    await cache.lookup("h", async () => entry);
    expect(cache.size).toBe(1);
    cache.dispose();
  });
});
