import { startServer } from "./app";
import { disconnectDb } from "./db/client";
import { logger } from "./log";

// Entry point of `npm start` / `npm run dev`: one instance serving the API, the DID documents
// and the console. `--api-only` skips Next (an API-only deployment, and what tests spawn).
const args = new Set(process.argv.slice(2));

startServer({ withNext: !args.has("--api-only"), dev: args.has("--dev") })
  .then((srv) => {
    const stop = async () => {
      await srv.close();
      await disconnectDb();
      process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  })
  .catch((err: Error) => {
    // An invalid environment cannot build a logger either, so the reason goes to stderr plainly.
    try {
      logger().fatal({ err: { message: err.message } }, "failed to start");
    } catch {
      // fall through to stderr
    }
    console.error(`Cannot start: ${err.message}`);
    process.exit(1);
  });
