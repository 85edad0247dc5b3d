import { env } from "@/env";
import { startServer } from "./app";
import { disconnectDb } from "./db/client";
import { flushLogs, logger } from "./log";
import { stopDefaultAuthCache } from "./platform/auth-cache-listener";
import { flushBatchedWindows } from "./platform/rate-limit-batch";
import { startupLine } from "./startup-line";

// Entry point of `npm start` / `npm run dev`: one instance serving the API, the DID documents
// and the console. `--api-only` skips Next (an API-only deployment, and what tests spawn).
const args = new Set(process.argv.slice(2));
const withNext = !args.has("--api-only");

startServer({ withNext, dev: args.has("--dev") })
  .then((srv) => {
    // Besides the JSON "listening" log line: a sentence for the person at the terminal, on stderr.
    process.stderr.write(`${startupLine({ port: srv.port, host: env().HOST, withNext, publicUrl: env().BI_PUBLIC_URL })}\n`);
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      try {
        // In-flight requests finish first (their access-log lines and rate-limit hits included),
        // then the counted hits are written, then the log is flushed: a normal exit loses nothing.
        await srv.close();
        await flushBatchedWindows();
        await stopDefaultAuthCache();
        await disconnectDb();
      } catch (err) {
        logger().error({ err: { message: (err as Error).message } }, "error while stopping");
      } finally {
        flushLogs();
        process.exit(0);
      }
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  })
  .catch((err: Error) => {
    // An invalid environment cannot build a logger either, so the reason goes to stderr plainly.
    try {
      logger().fatal({ err: { message: err.message } }, "failed to start");
      flushLogs();
    } catch {
      // fall through to stderr
    }
    console.error(`Cannot start: ${err.message}`);
    process.exit(1);
  });
