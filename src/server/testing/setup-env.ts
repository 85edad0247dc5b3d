import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, inject, vi } from "vitest";
import { resetEnvCache } from "../../env";
import { disconnectDb } from "../db/client";
import { stopDefaultAuthCache } from "../platform/auth-cache-listener";
import { flushBatchedWindows } from "../platform/rate-limit-batch";
import { copyDatabase } from "./postgres";

// Every test file talks to a database of its own, copied from the run's migrated template
// (global-setup.ts), and keeps local keys in the run's temp folder.
//
// Test files share a worker process one after another (vitest.config.ts, `isolate: false`: the
// packages the app loads are loaded once per worker, not once per file). What one file leaves in the process is
// undone after it here, so the next file starts as if alone: the environment it changed, the
// database connection (the next file has a database of its own), and the per-process state the
// service keeps beside it (the API-key cache and its LISTEN, the batched rate-limit counters, the
// loggers and metrics that read the environment when made).
const envBefore = { ...process.env };
const template = inject("templateDatabase");
process.env.DATABASE_URL = await copyDatabase(inject("adminDatabaseUrl"), template, `${template}_f${randomBytes(5).toString("hex")}`);
process.env.BI_DATA_DIR = inject("dataDir");
process.env.BI_ENV ??= "sandbox";
process.env.BI_PUBLIC_URL ??= "http://localhost:3000";
process.env.BI_RUN_JOBS = "false";
resetEnvCache();

const processState = globalThis as unknown as Record<string, unknown>;

// A query sent on a connection that is still running one fails the test: `pg` only queues it, a
// pattern it deprecates and pg@9 refuses, and it is what reads started side by side inside a
// transaction do (db/tx.ts, `readAll`).
const ONE_AT_A_TIME = Symbol.for("bind-identity.pg-one-query-at-a-time");
const clientProto = pg.Client.prototype as unknown as Record<PropertyKey, unknown> & { query: (...args: unknown[]) => unknown };
if (!clientProto[ONE_AT_A_TIME]) {
  const query = clientProto.query;
  clientProto.query = function (this: { _queryQueue?: unknown[]; _activeQuery?: unknown; pipeline?: boolean }, ...args: unknown[]) {
    if (!this.pipeline && (this._activeQuery || (this._queryQueue?.length ?? 0) > 0))
      throw new Error(
        "a query was sent on a pg connection still running another (one transaction, two queries at once): use readAll (db/tx.ts)",
      );
    return query.apply(this, args);
  };
  clientProto[ONE_AT_A_TIME] = true;
}

afterAll(async () => {
  await stopDefaultAuthCache().catch(() => undefined);
  await flushBatchedWindows().catch(() => undefined);
  await disconnectDb().catch(() => undefined);
  for (const name of Object.keys(processState)) if (name.startsWith("__bi")) delete processState[name];
  for (const name of Object.keys(process.env)) if (!(name in envBefore)) delete process.env[name];
  Object.assign(process.env, envBefore);
  resetEnvCache();
  // The app's own modules are evaluated afresh for the next file (their caches and "done once"
  // flags belong to this file's database); packages in node_modules stay loaded.
  vi.resetModules();
});
