import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PrismaClient } from "@/generated/prisma/client.ts";
import { seal } from "@/server/crypto/secret-box";
import { applyMigrations } from "@/server/db/migrate";
import { emitEvent } from "@/server/platform/outbox";
import { provisionOrganization } from "@/server/services/org";
import { entryArgs } from "@/server/testing/built-entries";
import { createDatabase, dropDatabase } from "@/server/testing/postgres";
import { type Receiver, startReceiver } from "@/server/testing/webhook-receiver";

/**
 * `npm run worker` processes (src/server/worker.ts, exactly as deployed) against a database of
 * their own, so they never touch deliveries of tests running in parallel on the run's database.
 */
const ROOT = path.resolve(import.meta.dirname, "../../../..");
const TIMEOUT_MS = 2_000;
const dbName = `bi_wh_workers_${process.pid}_${Date.now().toString(36)}`;
let dbUrl: string;
let pool: pg.Pool;
let db: PrismaClient;
const children: ChildProcess[] = [];

type Worker = { child: ChildProcess; output: () => string; attempts: (orgId: string) => string[] };

async function startWorker(): Promise<Worker> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: dbUrl,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_BACKOFF_BASE_MS: "100",
    LOG_LEVEL: "debug",
  };
  for (const k of ["VITEST", "NODE_ENV"]) delete env[k];
  const child = spawn(process.execPath, [...entryArgs("src/server/worker.ts")], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!out.includes("worker started")) {
    if (child.exitCode !== null) throw new Error(`worker exited early:\n${out.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`worker did not start:\n${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const attempts = (orgId: string) => {
    const ids = new Set(
      out
        .split("\n")
        .filter((l) => l.includes('"msg":"webhook attempt"'))
        .map((l) => JSON.parse(l) as { deliveryId: string; outcome: string })
        .filter((l) => l.outcome === "delivered")
        .map((l) => l.deliveryId),
    );
    return [...ids].filter((id) => deliveryOrg.get(id) === orgId);
  };
  return { child, output: () => out, attempts };
}

/** Kills the worker's whole process group: the worker and anything it started. */
async function kill(w: Worker, signal: NodeJS.Signals) {
  try {
    process.kill(-w.child.pid!, signal);
  } catch {
    // already gone
  }
  const deadline = Date.now() + 10_000;
  while (w.child.exitCode === null && w.child.signalCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

const deliveryOrg = new Map<string, string>();

async function orgWithHook(receiver: Receiver) {
  const org = await provisionOrganization(
    db,
    { name: `Workers ${Date.now()}`, email: `workers${Date.now()}@example.test`, plan: "institutional" },
    { type: "system", label: "test" },
  );
  await db.webhook.create({ data: { orgId: org.organizationId, url: receiver.url, events: ["*"], secretEnc: seal("whsec_workers") } });
  return org.organizationId;
}

async function emitMany(orgId: string, n: number) {
  for (let i = 0; i < n; i++) {
    await db.$transaction((tx) => emitEvent(tx, orgId, "account.unlocked", { accountDid: `did:antelope:sandbox:w${i}` }));
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  dbUrl = await createDatabase(inject("adminDatabaseUrl"), dbName);
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  await applyMigrations({ query: async (t, p) => (await c.query(t, p as unknown[])).rows, exec: async (t) => void (await c.query(t)) });
  await c.end();
  pool = new pg.Pool({ connectionString: dbUrl, max: 4 });
  db = new PrismaClient({ adapter: new PrismaPg(pool) });
});

afterAll(async () => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await db?.$disconnect();
  await pool?.end().catch(() => undefined);
  await new Promise((r) => setTimeout(r, 500));
  await dropDatabase(inject("adminDatabaseUrl"), dbName).catch(() => undefined);
});

describe("webhook workers as separate processes", () => {
  it("a worker killed with SIGKILL mid-batch loses nothing: another takes its claims over after the lease", async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 400 }));
    const orgId = await orgWithHook(receiver);
    const first = await startWorker();
    await emitMany(orgId, 40);
    await receiver.waitFor(5, 30_000);
    await kill(first, "SIGKILL");
    expect(first.child.signalCode).toBe("SIGKILL");
    // Mid-batch: some deliveries are claimed by the dead worker and not finished.
    const stranded = await db.webhookDelivery.count({ where: { orgId, status: "pending", lockedUntil: { not: null } } });
    const unfinished = await db.webhookDelivery.count({ where: { orgId, status: { not: "delivered" } } });
    const undispatched = await db.outboxEvent.count({ where: { orgId, dispatchedAt: null } });
    expect(stranded).toBeGreaterThan(0);
    expect(unfinished + undispatched).toBeGreaterThan(0);

    const second = await startWorker();
    await waitUntil(
      async () => (await db.webhookDelivery.count({ where: { orgId, status: "delivered" } })) === 40,
      60_000,
      "all 40 delivered",
    );
    const rows = await db.webhookDelivery.findMany({ where: { orgId } });
    expect(rows).toHaveLength(40);
    const received = new Set(receiver.received.map((r) => r.deliveryId));
    for (const r of rows) expect(received.has(r.id), r.id).toBe(true);
    // At-least-once: only attempts cut off by the kill may arrive twice.
    expect(receiver.received.length - 40).toBeLessThanOrEqual(16);
    await kill(second, "SIGTERM");
  }, 120_000);

  it("two workers on one database share the work without sending any delivery twice", async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 30 }));
    const orgId = await orgWithHook(receiver);
    const a = await startWorker();
    const b = await startWorker();
    await emitMany(orgId, 100);
    await waitUntil(
      async () => (await db.webhookDelivery.count({ where: { orgId, status: "delivered" } })) === 100,
      60_000,
      "all 100 delivered",
    );
    const rows = await db.webhookDelivery.findMany({ where: { orgId }, select: { id: true } });
    for (const r of rows) deliveryOrg.set(r.id, orgId);
    expect(receiver.received).toHaveLength(100);
    expect(new Set(receiver.received.map((r) => r.deliveryId)).size).toBe(100);
    await new Promise((r) => setTimeout(r, 300));
    const [byA, byB] = [a.attempts(orgId), b.attempts(orgId)];
    expect(byA.length + byB.length).toBe(100);
    expect(byA.length, "worker A took part").toBeGreaterThan(0);
    expect(byB.length, "worker B took part").toBeGreaterThan(0);
    expect(byA.filter((id) => byB.includes(id))).toEqual([]);
    await Promise.all([kill(a, "SIGTERM"), kill(b, "SIGTERM")]);
  }, 120_000);
});
