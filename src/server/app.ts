import http from "node:http";
import type { AddressInfo } from "node:net";
import { env } from "@/env";
import { CLIENT_IP_HEADER } from "./auth/client-ip";
import { connectDb, migrateOnStart } from "./db/client";
import { resolveClientIp } from "./http/middleware/client-ip";
import { answerParserRefusals, nodeHandler } from "./http/node-adapter";
import { isPipelinePath } from "./http/paths";
import { createPipeline } from "./http/pipeline";
import { routes } from "./http/routes";
import { startJobs } from "./jobs";
import { logger } from "./log";
import { listenOperatorMetrics } from "./metrics";
import { compileCidrs } from "./net/cidr";
import { listenOperatorSocket } from "./operator-socket";
import { advisorConfig } from "./providers/advisor";
import { chainConfigFromEnv, usesSimulatedChain } from "./providers/chain";
import { assertKycConfigured } from "./providers/kyc";
import { assertMessagingConfigured } from "./providers/messaging";
import { assertPaymentsConfigured } from "./providers/payments";
import { withDeadline } from "./shutdown";

export type StartOptions = {
  port?: number;
  host?: string;
  /** Serve the console and pages through Next as well (needs `next build`, or `dev`). */
  withNext?: boolean;
  dev?: boolean;
  runJobs?: boolean;
};

/**
 * Fails at start-up rather than on the first message or chain call, naming every bad or missing
 * variable of every provider in one error (never a value), so one restart can fix them all.
 */
export function assertConfigured(): void {
  const checks = [
    assertMessagingConfigured,
    assertKycConfigured,
    assertPaymentsConfigured,
    advisorConfig,
    () => usesSimulatedChain() || chainConfigFromEnv(),
  ];
  const problems: string[] = [];
  for (const check of checks) {
    try {
      check();
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length) throw new Error(problems.join("\n"));
}

export type RunningServer = { url: string; port: number; close: () => Promise<void> };

/**
 * Boots one instance: validates the environment, opens the database, applies migrations, starts
 * background jobs, and serves /v1 and the DID documents through our pipeline (which needs the
 * socket's peer address) and everything else through Next.
 */
export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const e = env();
  assertConfigured();
  const conn = await connectDb();
  const applied = await migrateOnStart();
  if (applied === null) logger().info("migrations left to the migration job (BI_MIGRATE_ON_START=false); /v1/ready waits for them");
  else if (applied.length) logger().info({ applied }, "migrations applied");
  let draining = false;
  const api = nodeHandler(createPipeline(routes, conn.prisma, { draining: () => draining }));

  let nextHandle: ((req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) | undefined;
  let closeNext: (() => Promise<void>) | undefined;
  if (opts.withNext) {
    const { default: next } = await import("next");
    const app = next({ dev: !!opts.dev, dir: process.cwd() });
    await app.prepare();
    nextHandle = app.getRequestHandler() as typeof nextHandle;
    closeNext = () => app.close();
  }

  const trusted = compileCidrs(
    e.TRUSTED_PROXIES.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const server = answerParserRefusals(
    http.createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0]!;
      if (isPipelinePath(path) || !nextHandle) return void api(req, res);
      // Next's handlers cannot see the socket: hand them the client address resolved exactly as the
      // /v1 pipeline does (console rate limits, the allowlist page). Any incoming value is replaced.
      const xff = req.headers["x-forwarded-for"];
      req.headers[CLIENT_IP_HEADER] = resolveClientIp(
        req.socket.remoteAddress ?? "",
        Array.isArray(xff) ? xff.join(",") : (xff ?? null),
        trusted,
      );
      void nextHandle(req, res);
    }),
  );
  server.keepAliveTimeout = 65_000;

  const stopOperator = conn.kind === "embedded" || e.BI_OPERATOR_SOCKET ? listenOperatorSocket(conn.prisma) : () => undefined;
  const runJobs = opts.runJobs ?? e.BI_RUN_JOBS;
  // Gauges counted in the database are exported by the processes that run the jobs (the worker, or
  // this instance when it runs them), so a cluster of instances does not report them once each.
  const operatorMetrics =
    e.BI_METRICS_PORT === undefined ? null : await listenOperatorMetrics(e.BI_METRICS_PORT, e.BI_METRICS_HOST, { databaseGauges: runJobs });
  const stopJobs = runJobs ? startJobs(conn.prisma) : async () => undefined;
  await new Promise<void>((resolve) => server.listen(opts.port ?? e.PORT, opts.host ?? e.HOST, resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  logger().info({ url, database: conn.kind, environment: e.BI_ENV, console: !!nextHandle }, "listening");
  return {
    url,
    port,
    /**
     * Shuts down without dropping work (docs/operations.md, "Starting and stopping"): readiness
     * answers 503 at once, requests keep being served for BI_SHUTDOWN_DELAY_MS while load balancers
     * notice, then the listener closes and requests in flight (and running jobs) get
     * BI_SHUTDOWN_GRACE_MS to finish before their connections are cut.
     */
    async close() {
      draining = true;
      if (e.BI_SHUTDOWN_DELAY_MS) await new Promise((r) => setTimeout(r, e.BI_SHUTDOWN_DELAY_MS));
      stopOperator();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections?.();
      const cut = setTimeout(() => server.closeAllConnections?.(), e.BI_SHUTDOWN_GRACE_MS);
      cut.unref();
      await Promise.all([closed, withDeadline(stopJobs(), e.BI_SHUTDOWN_GRACE_MS)]);
      clearTimeout(cut);
      await operatorMetrics?.close();
      await closeNext?.();
    },
  };
}
