import { env } from "@/env";
import { connectDb, disconnectDb, migrateOnStart } from "./db/client";
import { startJobs } from "./jobs";
import { flushLogs, logger } from "./log";
import { withDeadline } from "./shutdown";

// `npm run worker`: background jobs (export runner, purges, webhook delivery) in a separate
// process, for deployments that scale them apart from the HTTP instances (then run those with
// BI_RUN_JOBS=false). Jobs claim work with row locks, so any number of workers may run.
const conn = await connectDb();
await migrateOnStart();
const stop = startJobs(conn.prisma);
logger().info({ database: conn.kind }, "worker started");
let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  // No new claims; runs and webhook attempts in flight finish within the grace period. Anything
  // cut off keeps its lease until it lapses and is then taken again (delivery is at-least-once).
  await withDeadline(stop(), env().BI_SHUTDOWN_GRACE_MS);
  await disconnectDb();
  logger().info("worker stopped");
  flushLogs();
  process.exit(0);
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
setInterval(() => undefined, 1 << 30);
