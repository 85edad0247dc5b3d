import { env } from "@/env";
import { connectDb, disconnectDb, isDatabaseReady, migrateOnStart } from "./db/client";
import { startJobs } from "./jobs";
import { flushLogs, logger } from "./log";
import { listenOperatorMetrics } from "./metrics";
import { monitoringMetrics } from "./services/screening";
import { webhookMetrics } from "./services/webhooks";
import { withDeadline } from "./shutdown";

// `npm run worker`: background jobs (export runner, purges, webhook delivery) in a separate
// process, for deployments that scale them apart from the HTTP instances (then run those with
// BI_RUN_JOBS=false). Jobs claim work with row locks, so any number of workers may run.
const e = env();
const conn = await connectDb();
const migrated = await migrateOnStart();
/** The job loops' stop, once they run: not before every migration is applied. */
let stop: (() => Promise<unknown>) | null = null;
let stopping = false;

/** Healthy while the job loops run and the database answers within 2 s; unhealthy before they run and once draining. */
async function healthy(): Promise<boolean> {
  if (stopping || !stop) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), 2_000);
  });
  const ping = conn.prisma.$queryRaw`SELECT 1`.then(
    () => true,
    () => false,
  );
  try {
    return (await Promise.race([ping, timeout])) && !stopping;
  } finally {
    clearTimeout(timer);
  }
}

// The operator's endpoint (GET /metrics, GET /healthz) on BI_METRICS_PORT, as the app instances
// serve theirs; without BI_METRICS_PORT the worker opens no port.
const operator =
  e.BI_METRICS_PORT === undefined ? null : await listenOperatorMetrics(e.BI_METRICS_PORT, e.BI_METRICS_HOST, { health: healthy });
logger().info({ database: conn.kind, metrics: operator?.url ?? null }, "worker started");

// With BI_MIGRATE_ON_START=false the migration job migrates (docs/operations.md): the jobs wait
// for it, polling, and /healthz answers 503 meanwhile, so the worker is held back like the app's
// /v1/ready holds the app back.
if (migrated === null) {
  logger().info("waiting for the migration job (BI_MIGRATE_ON_START=false)");
  while (!stopping && !(await isDatabaseReady())) await new Promise((r) => setTimeout(r, 1_000));
}
if (!stopping) {
  // Registered now rather than at the first delivery or re-screen, so a scrape of an idle worker
  // already shows the database counts (deliveries and runs by status) the alert rules read.
  webhookMetrics();
  monitoringMetrics();
  stop = startJobs(conn.prisma);
  logger().info("worker jobs started");
}
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  // No new claims; runs and webhook attempts in flight finish within the grace period. Anything
  // cut off keeps its lease until it lapses and is then taken again (delivery is at-least-once).
  // /healthz answers 503 from here on; /metrics keeps answering until the jobs have stopped.
  if (stop) await withDeadline(stop(), e.BI_SHUTDOWN_GRACE_MS);
  await operator?.close();
  await disconnectDb();
  logger().info("worker stopped");
  flushLogs();
  process.exit(0);
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
setInterval(() => undefined, 1 << 30);
