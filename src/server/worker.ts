import { connectDb, disconnectDb, migrateDatabase } from "./db/client";
import { startJobs } from "./jobs";
import { logger } from "./log";

// `npm run worker`: background jobs (export runner, purges, later webhook delivery) in a separate
// process, for deployments that scale them apart from the HTTP instances (then run those with
// BI_RUN_JOBS=false). Jobs claim work with row locks, so any number of workers may run.
const conn = await connectDb();
await migrateDatabase();
const stop = startJobs(conn.prisma);
logger().info({ database: conn.kind }, "worker started");
const shutdown = async () => {
  await stop();
  await disconnectDb();
  process.exit(0);
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
setInterval(() => undefined, 1 << 30);
