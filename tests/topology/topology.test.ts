import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATION_LOCK_ID } from "../../src/server/db/migrate";
import { maxUnsynced } from "../../src/server/platform/rate-limit-batch";
import { walletKey } from "../../src/server/testing/factories";
import { type Pgbouncer, startPgbouncer } from "../../src/server/testing/pgbouncer";
import { createDatabase, dropDatabase, findPostgres } from "../../src/server/testing/postgres";
import { type Cluster, cluster, freePort, type Proc, startProxy, startReceiver, startRole, stop, untilReady } from "./cluster";

// `npm run test:topology`: the deployment of deploy/k8s (a migration job, app instances with
// BI_RUN_JOBS=false, a worker, PgBouncer in transaction mode between their pools and PostgreSQL, a
// reverse proxy in front) as processes on loopback, on databases of its own, with the manifests'
// settings and otherwise the defaults. Each step prints its figures. docs/operations.md, "Running
// several instances" and "PgBouncer".

const run = promisify(execFile);
const DRAIN = { BI_SHUTDOWN_DELAY_MS: "1000", BI_SHUTDOWN_GRACE_MS: "10000" };

let admin: Awaited<ReturnType<typeof findPostgres>>;
let bouncer: Pgbouncer;
const dbName = `bi_topology_${process.pid}_${Date.now().toString(36)}`;
const pooledDbs: string[] = [];
let c: Cluster;
let proxy: Awaited<ReturnType<typeof startProxy>>;
const ports: number[] = [];
const apps: (Proc | undefined)[] = [];
let worker: Proc | undefined;
let org: { organizationId: string; apiKey: string };

const figures = (step: string, values: Record<string, unknown>) => console.log(`topology: ${step} ${JSON.stringify(values)}`);

async function api(base: string, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

async function createOrg(plan: string) {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "scripts/org-create.ts", "--name", `Topology ${plan}`, "--email", "ops@topology.test", "--plan", plan],
    {
      env: { ...process.env, ...c.env },
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { organizationId: string; apiKey: string };
}

/** Runs `worker(i)` over `n` items, `concurrency` at a time. */
async function pool(n: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

beforeAll(async () => {
  admin = await findPostgres();
  // Twenty server connections per database, as deploy/k8s/pgbouncer.yaml.
  bouncer = await startPgbouncer(admin.adminUrl, { poolSize: 20 });
  const url = await createDatabase(admin.adminUrl, dbName);
  ports.push(await freePort(), await freePort());
  proxy = await startProxy(() => ports.map((p) => `http://127.0.0.1:${p}`));
  c = cluster(url, proxy.base, bouncer.url(dbName));
}, 60_000);

afterAll(async () => {
  await Promise.all([...apps, worker].map((p) => stop(p, "SIGKILL")));
  await proxy?.close();
  const log = bouncer?.log() ?? "";
  await bouncer?.stop();
  for (const name of [dbName, ...pooledDbs]) await dropDatabase(admin.adminUrl, name);
  await admin.stop();
  fs.rmSync(c.dataDir, { recursive: true, force: true });
  // A pooled session that ran LISTEN shows here; nothing of ours may.
  expect(log).not.toMatch(/when not linked/);
});

/** Advisory locks on the migration lock's key in `database`, granted or waited for. */
async function migrationLocks(database: string): Promise<number> {
  const db = new pg.Client({ connectionString: admin.adminUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
        WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND d.datname = $2`,
      [MIGRATION_LOCK_ID, database],
    );
    return rows[0]!.n;
  } finally {
    await db.end();
  }
}

async function appliedMigrations(url: string): Promise<{ migration_name: string; finished_at: Date | null }[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (
      await db.query<{ migration_name: string; finished_at: Date | null }>("SELECT migration_name, finished_at FROM _prisma_migrations")
    ).rows;
  } finally {
    await db.end();
  }
}

const migrationDirs = () => fs.readdirSync("prisma/migrations").filter((d) => fs.statSync(`prisma/migrations/${d}`).isDirectory());

describe("migrations through PgBouncer while instances start", () => {
  // The hard case as deployed: the migration job (straight to PostgreSQL) and three instances that
  // also migrate at start, through the pooler (BI_MIGRATE_ON_START on, no DATABASE_MIGRATION_URL),
  // all at once on a fresh database. It must apply each migration once, make every instance ready,
  // and leave no migration lock behind; then an operator script through the pooler must migrate and
  // finish at once. The interleavings that once left a lock on a pooled connection are
  // set up step by step in src/server/db/migrate.test.ts, not left to a repetition's luck.
  it("applies every migration once and leaves no lock held", async () => {
    const name = `${dbName}_pooled`;
    pooledDbs.push(name);
    const direct = await createDatabase(admin.adminUrl, name);
    const started = Date.now();
    const migrating = { DATABASE_MIGRATION_URL: direct, DATABASE_URL: bouncer.url(name), DATABASE_DIRECT_URL: direct };
    const migrate = startRole(c, "migrate", migrating);
    const instancePorts = [await freePort(), await freePort(), await freePort()];
    const instances = instancePorts.map((port) =>
      startRole(
        c,
        "app",
        { DATABASE_URL: bouncer.url(name), DATABASE_DIRECT_URL: direct, DATABASE_MIGRATION_URL: "", BI_MIGRATE_ON_START: "true" },
        port,
      ),
    );
    try {
      expect(await migrate.exited, migrate.output).toBe(0);
      await Promise.all(instances.map((p) => untilReady(p)));
    } finally {
      await Promise.all(instances.map((p) => stop(p, "SIGKILL")));
    }
    const rows = await appliedMigrations(direct);
    expect(rows.map((r) => r.migration_name).sort()).toEqual(migrationDirs().sort());
    expect(rows.every((r) => r.finished_at)).toBe(true);
    expect(await migrationLocks(name), "a migration lock is still held").toBe(0);
    figures("migrations through the pooler", { instances: instances.length, ms: Date.now() - started });
    // The symptom of a lock left on a pooled connection: the next migrator through the pooler waited for ever.
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "scripts/org-create.ts", "--name", "After the migrations", "--email", "ops@topology.test", "--plan", "builder"],
      {
        env: {
          ...process.env,
          ...c.env,
          DATABASE_URL: bouncer.url(name),
          DATABASE_MIGRATION_URL: "",
          BI_MIGRATE_ON_START: "true",
          BI_MIGRATION_LOCK_WAIT_MS: "10000",
        },
        timeout: 60_000,
      },
    );
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!).organizationId).toMatch(/\S/);
  }, 600_000);
});

describe.sequential("the multi-instance topology on loopback", () => {
  it("applies the migrations once when the migration job and both instances start together", async () => {
    const migrate = startRole(c, "migrate");
    apps[0] = startRole(c, "app", DRAIN, ports[0]);
    apps[1] = startRole(c, "app", DRAIN, ports[1]);
    expect(await migrate.exited, migrate.output).toBe(0);
    await Promise.all([untilReady(apps[0]), untilReady(apps[1])]);
    const rows = await appliedMigrations(c.databaseUrl);
    expect(rows.map((r) => r.migration_name).sort()).toEqual(migrationDirs().sort());
    expect(rows.every((r) => r.finished_at)).toBe(true);
    expect(await migrationLocks(dbName)).toBe(0);
    figures("migrations", { applied: rows.length, instances: 2 });
    org = await createOrg("institutional");
  }, 180_000);

  it("sends requests to both instances through the proxy", async () => {
    const statuses: number[] = [];
    await pool(200, 8, async () => {
      statuses.push((await api(proxy.base, "GET", "/v1/tenant", org.apiKey)).status);
    });
    expect(statuses.filter((s) => s === 200)).toHaveLength(200);
    // Each instance counts its own requests (per process): both must have answered some.
    const perInstance = await Promise.all(
      apps.map(async (a) => {
        const text = (await api(a!.base!, "GET", "/v1/metrics", org.apiKey)).body as string;
        const line = text
          .split("\n")
          .find((l) => l.startsWith("bi_http_requests_total") && l.includes('route="/v1/tenant"') && l.includes('status="200"'));
        return Number(line?.split(" ").at(-1) ?? 0);
      }),
    );
    figures("spread", { perInstance });
    for (const n of perInstance) expect(n).toBeGreaterThan(20);
  }, 60_000);

  it("refuses a key revoked through one instance on the other within a second", async () => {
    const [a, b] = apps.map((p) => p!.base!);
    const minted = await api(a!, "POST", "/v1/admin/api-keys", org.apiKey, { name: "revoked across instances" });
    expect(minted.status).toBe(201);
    expect((await api(b!, "GET", "/v1/tenant", minted.body.apiKey)).status).toBe(200);
    expect((await api(a!, "DELETE", `/v1/admin/api-keys/${minted.body.id}`, org.apiKey)).status).toBe(200);
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 3000) status = (await api(b!, "GET", "/v1/tenant", minted.body.apiKey)).status;
    const tookMs = Date.now() - started;
    figures("revocation", { refusedAfterMs: tookMs });
    expect(status).toBe(401);
    expect(tookMs).toBeLessThan(1000);
  }, 30_000);

  it("holds the plan's limit across both instances", async () => {
    const limit = 120;
    const [a, b] = apps.map((p) => p!.base!);
    const minute = () => Math.floor(Date.now() / 60_000);
    // Fixed one-minute windows: a burst counted in two windows says nothing, so one that crossed a
    // minute is run again at once with a fresh organization, at the start of the new window (the
    // burst takes seconds).
    let statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const builder = await createOrg("builder");
      const started = minute();
      statuses = [];
      await pool(limit + 60, 8, async (i) => {
        statuses.push((await api(i % 2 ? a! : b!, "GET", "/v1/tenant", builder.apiKey)).status);
      });
      if (minute() === started) break;
      statuses = [];
    }
    expect(statuses.length, "every burst crossed a minute").toBe(limit + 60);
    const admitted = statuses.filter((s) => s === 200).length;
    const refused = statuses.filter((s) => s === 429).length;
    figures("plan limit", { limit, admitted, refused, allowance: 2 * (maxUnsynced(limit) - 1) });
    expect(admitted + refused).toBe(statuses.length);
    expect(admitted).toBeGreaterThanOrEqual(limit);
    expect(admitted).toBeLessThanOrEqual(limit + 2 * (maxUnsynced(limit) - 1));
  }, 120_000);

  it("delivers each webhook once from the worker, and loses none when the worker is killed", async () => {
    const receiver = await startReceiver();
    try {
      expect(
        (await api(proxy.base, "POST", "/v1/admin/webhooks", org.apiKey, { url: receiver.url, events: ["account.created"] })).status,
      ).toBe(201);
      worker = startRole(c, "worker");
      const create = async (n: number) => {
        await pool(n, 4, async () => {
          const r = await api(proxy.base, "POST", "/v1/accounts/free", org.apiKey, { ownerPublicKey: walletKey().publicKey });
          expect(r.status, JSON.stringify(r.body)).toBe(201);
        });
      };
      const delivered = (n: number, withinMs: number) =>
        new Promise<void>((resolve, reject) => {
          const started = Date.now();
          const tick = setInterval(() => {
            if (receiver.deliveries.size >= n) resolve(void clearInterval(tick));
            else if (Date.now() - started > withinMs) {
              clearInterval(tick);
              reject(new Error(`${receiver.deliveries.size} of ${n} delivered`));
            }
          }, 100);
        });
      await create(20);
      await delivered(20, 60_000);
      expect([...receiver.deliveries.values()].every((n) => n === 1)).toBe(true);

      // Killed in the middle of the next events: another worker delivers them all (some possibly twice).
      const more = create(20);
      await new Promise((r) => setTimeout(r, 300));
      await stop(worker, "SIGKILL");
      worker = startRole(c, "worker");
      await more;
      await delivered(40, 90_000);
      const twice = [...receiver.deliveries.values()].filter((n) => n > 1).length;
      figures("webhooks", { events: 40, delivered: receiver.deliveries.size, deliveredTwice: twice });
      expect(receiver.deliveries.size).toBe(40);
    } finally {
      await receiver.close();
    }
  }, 180_000);

  it("restarts both instances one after the other under write load, losing no acknowledged write and answering no 5xx", async () => {
    const acked: string[] = [];
    const statuses = new Map<number, number>();
    let writing = true;
    let n = 0;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) {
        const r = await api(
          proxy.base,
          "POST",
          "/v1/accounts/free",
          org.apiKey,
          { ownerPublicKey: walletKey().publicKey },
          {
            "idempotency-key": `topology-${process.pid}-${++n}`,
          },
        );
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 201) acked.push(r.body.accountDid as string);
      }
    });
    const exits: (number | null)[] = [];
    await new Promise((r) => setTimeout(r, 1500));
    for (const i of [0, 1]) {
      exits.push(await stop(apps[i], "SIGTERM"));
      apps[i] = startRole(c, "app", DRAIN, ports[i]);
      await untilReady(apps[i]!);
      await new Promise((r) => setTimeout(r, 1000));
    }
    writing = false;
    await Promise.all(writers);
    let missing = 0;
    await pool(acked.length, 8, async (i) => {
      const r = await api(proxy.base, "GET", `/v1/accounts/${encodeURIComponent(acked[i]!)}`, org.apiKey);
      if (r.status !== 200) missing++;
    });
    const fiveXX = [...statuses].filter(([s]) => s >= 500).reduce((sum, [, k]) => sum + k, 0);
    figures("rolling restart", { acknowledged: acked.length, missing, fiveXX, statuses: Object.fromEntries(statuses), exitCodes: exits });
    expect(exits).toEqual([0, 0]);
    expect(acked.length).toBeGreaterThan(10);
    expect(missing).toBe(0);
    expect(fiveXX).toBe(0);
  }, 240_000);
});
