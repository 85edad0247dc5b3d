import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, client, createTestOrg } from "../testing/harness";
import { type Instance, startInstance, stopInstance, within } from "../testing/instance";
import { type Pgbouncer, startPgbouncer } from "../testing/pgbouncer";

/**
 * Two instances whose DATABASE_URL goes through a real PgBouncer in transaction mode, each with
 * its API-key cache on: a key revoked through one is refused by the other within a second,
 * because each LISTENs on DATABASE_DIRECT_URL (PostgreSQL itself) and never through the pooler
 * (docs/operations.md, "PgBouncer"). Without a direct address the combination is refused at start.
 */
const direct = process.env.DATABASE_URL!;
let bouncer: Pgbouncer | undefined;
let a: Instance | undefined;
let b: Instance | undefined;

const behindPooler = () => ({
  DATABASE_URL: bouncer!.url(new URL(direct).pathname.slice(1)),
  DATABASE_MIGRATION_URL: direct,
  BI_DATABASE_POOLED: "true",
});

beforeAll(async () => {
  bouncer = await startPgbouncer(inject("adminDatabaseUrl"), { poolSize: 3 });
  [a, b] = await Promise.all([
    startInstance({ ...behindPooler(), DATABASE_DIRECT_URL: direct }),
    startInstance({ ...behindPooler(), DATABASE_DIRECT_URL: direct }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([stopInstance(a), stopInstance(b)]);
  await bouncer?.stop();
});

const tenant = (base: string, key: string) => call(base, "GET", "/v1/tenant", { key });

/** Changes a key's revokedAt from a session whose triggers do not fire: no NOTIFY, so only a database read sees it. */
async function quietly(key: string, revoked: boolean): Promise<void> {
  const c = new pg.Client({ connectionString: direct });
  await c.connect();
  try {
    await c.query("SET session_replication_role = replica");
    await c.query(
      `UPDATE api_keys SET "revokedAt" = ${revoked ? "now()" : "NULL"} WHERE "keyHash" = encode(sha256(convert_to($1, 'UTF8')), 'hex')`,
      [key],
    );
  } finally {
    await c.end();
  }
}

async function mint(base: string, adminKey: string, name: string) {
  const minted = await client(base, adminKey).post("/v1/admin/api-keys", { name, scopes: ["read"] });
  expect(minted.status, minted.text).toBe(201);
  return { key: minted.body.apiKey as string, id: minted.body.id as string };
}

describe("the API-key cache behind PgBouncer in transaction mode", () => {
  it("refuses a key revoked through one instance on another within a second, with LISTEN on DATABASE_DIRECT_URL", async () => {
    const org = await createTestOrg();
    // The other instance answers from its cache: a change that announces nothing is not seen there
    // (tried until its invalidation feed is up, which is when it starts keeping entries).
    const probe = await mint(a!.base, org.apiKey, "probe");
    const cached = await within(20_000, async () => {
      await quietly(probe.key, false);
      if ((await tenant(b!.base, probe.key)).status !== 200) return false;
      await quietly(probe.key, true);
      return (await tenant(b!.base, probe.key)).status === 200;
    });
    expect(cached, "instance b never answered from its cache").not.toBeNull();

    const revoked = await mint(a!.base, org.apiKey, "revoked through a");
    for (const base of [a!.base, b!.base, a!.base, b!.base]) expect((await tenant(base, revoked.key)).status).toBe(200);
    expect((await client(a!.base, org.apiKey).delete(`/v1/admin/api-keys/${revoked.id}`)).status).toBe(200);
    expect((await tenant(a!.base, revoked.key)).status).toBe(401);
    const took = await within(1_000, async () => (await tenant(b!.base, revoked.key)).status === 401);
    expect(took, "instance b still accepted the revoked key after a second").not.toBeNull();

    // Nothing LISTENed through the pooler: it never met a notification it could not hand to a client.
    expect(bouncer!.log()).not.toContain("when not linked");
  });

  it("is refused at start-up when DATABASE_URL goes through the pooler and no direct address is given", async () => {
    const failure = await startInstance(behindPooler()).then(
      async (inst) => {
        await stopInstance(inst);
        return null;
      },
      (err: Error) => err.message,
    );
    expect(failure).toContain("BI_AUTH_CACHE: is on while DATABASE_URL goes through a transaction pooler");
    expect(failure).toContain("DATABASE_DIRECT_URL");
  });
});
