/**
 * `npm run bench:webhooks`: webhook deliveries per second to a local receiver, with one and with
 * two `npm run worker` processes (src/server/worker.ts as deployed: dispatcher + delivery pool)
 * on a throwaway PostgreSQL database. Events are written to the outbox in bulk, then the clock
 * runs until every delivery is recorded as delivered. Flags:
 *   --events <n>        events per run (default 2000; --quick 500)
 *   --receiver-ms <n>   how long the receiver takes to answer (default 0)
 *   --quick             fewer events
 */
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { throwawayDatabase } from "./lib/db";

const ROOT = path.resolve(import.meta.dirname, "..");
const argv = process.argv.slice(2);
const option = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes("--quick");
const EVENTS = Number(option("events") ?? (quick ? 500 : 2000));
const RECEIVER_MS = Number(option("receiver-ms") ?? 0);

type Run = { workers: number; deliveries: number; seconds: number; perSecond: number; duplicates: number; p50Ms: number; p95Ms: number };

function startReceiver() {
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["x-bi-delivery-id"]);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const reply = () => res.writeHead(200).end();
      if (RECEIVER_MS) setTimeout(reply, RECEIVER_MS);
      else reply();
    });
  });
  return new Promise<{ url: string; seen: Map<string, number>; close: () => void }>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen, close: () => server.close() }),
    ),
  );
}

async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["src/server/worker.ts"], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!out.includes("worker started")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

const stop = (c: ChildProcess) => {
  try {
    process.kill(-c.pid!, "SIGTERM");
  } catch {
    // gone
  }
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

async function main() {
  const { url, dataDir, admin, drop } = await throwawayDatabase();
  await admin.end();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    BI_DATA_DIR: dataDir,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    LOG_LEVEL: "info",
    BI_RUN_JOBS: "false",
  };
  Object.assign(process.env, { DATABASE_URL: url, BI_DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_URLS: "true", LOG_LEVEL: "warn" });
  const { getDb, disconnectDb } = await import("../src/server/db/client");
  const { provisionOrganization } = await import("../src/server/services/org/organizations");
  const { seal } = await import("../src/server/crypto/secret-box");
  const db = await getDb();
  const receiver = await startReceiver();
  const runs: Run[] = [];
  try {
    for (const workers of [1, 2]) {
      const org = await provisionOrganization(
        db,
        { name: `Bench ${workers}`, email: `bench${workers}@example.test`, plan: "institutional" },
        { type: "system", label: "bench" },
      );
      const orgId = org.organizationId;
      await db.webhook.create({ data: { orgId, url: receiver.url, events: ["*"], secretEnc: seal("whsec_bench") } });
      const children = [];
      for (let i = 0; i < workers; i++) children.push(await startWorker(env));
      const before = receiver.seen.size;
      const started = performance.now();
      await db.outboxEvent.createMany({
        data: Array.from({ length: EVENTS }, (_, i) => ({
          orgId,
          event: "account.unlocked",
          payload: { accountDid: `did:antelope:sandbox:b${i}` },
        })),
      });
      for (;;) {
        const done = await db.webhookDelivery.count({ where: { orgId, status: "delivered" } });
        if (done >= EVENTS) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const seconds = (performance.now() - started) / 1000;
      children.forEach(stop);
      const rows = await db.webhookDelivery.findMany({ where: { orgId }, select: { id: true, createdAt: true, deliveredAt: true } });
      const latencies = rows.map((r) => r.deliveredAt!.getTime() - r.createdAt.getTime()).sort((a, b) => a - b);
      const duplicates = rows.reduce((n, r) => n + Math.max(0, (receiver.seen.get(r.id) ?? 0) - 1), 0);
      if (receiver.seen.size - before !== EVENTS)
        throw new Error(`receiver saw ${receiver.seen.size - before} distinct deliveries, expected ${EVENTS}`);
      runs.push({
        workers,
        deliveries: EVENTS,
        seconds: +seconds.toFixed(2),
        perSecond: Math.round(EVENTS / seconds),
        duplicates,
        p50Ms: percentile(latencies, 50),
        p95Ms: percentile(latencies, 95),
      });
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    receiver.close();
    await disconnectDb();
    await new Promise((r) => setTimeout(r, 500));
    await drop().catch(() => undefined);
  }
  console.log(`\nWebhook deliveries to a local receiver (${RECEIVER_MS} ms answer), ${os.cpus().length} CPUs, ${EVENTS} events per run`);
  console.log("workers | deliveries | seconds | deliveries/s | duplicates | event→delivered p50 / p95 (ms)");
  for (const r of runs) {
    console.log(
      `${String(r.workers).padStart(7)} | ${String(r.deliveries).padStart(10)} | ${String(r.seconds).padStart(7)} | ${String(r.perSecond).padStart(12)} | ${String(r.duplicates).padStart(10)} | ${r.p50Ms} / ${r.p95Ms}`,
    );
  }
  console.log(JSON.stringify({ bench: "webhooks", receiverMs: RECEIVER_MS, runs }));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
