import autocannon from "autocannon";
import type pg from "pg";
import { cpuBetween, databaseCpu, processCpuMs } from "./cpu";
import type { BenchServer } from "./server";

export type LoadResult = {
  name: string;
  rps: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Database round trips per request, counted in the server process (null: not counted). */
  dbPerRequest: number | null;
  /** CPU milliseconds per request: the app processes, and the database's backends of this bench's database. */
  appCpuMsPerRequest?: number;
  dbCpuMsPerRequest?: number;
};

/** Where to read the database's CPU from (its backends of one database). */
export type CpuProbe = { admin: pg.Client; database: string };

export type LoadSpec = {
  name: string;
  path: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** A fresh body and headers for every request (e.g. a new Idempotency-Key). */
  perRequest?: () => { body?: string; headers?: Record<string, string> };
};

/**
 * Drives `servers` (one or more instances, connections split between them) from this process over
 * loopback for `durationSec` or `amount` requests, whichever comes first.
 */
export async function load(
  servers: BenchServer[],
  spec: LoadSpec,
  opts: { connections: number; durationSec: number; amount: number; cpu?: CpuProbe },
): Promise<LoadResult> {
  for (const s of servers) {
    if (s.child.exitCode !== null || s.child.signalCode !== null)
      throw new Error(`server ${s.base} has exited (${s.child.exitCode ?? s.child.signalCode}):\n${s.stderr.slice(-3000)}`);
  }
  await settle(servers);
  const before = await Promise.all(servers.map((s) => s.dbQueries()));
  const appCpu = () => servers.reduce((ms, s) => ms + processCpuMs(s.child.pid), 0);
  const cpuBefore = { app: appCpu(), db: opts.cpu ? await databaseCpu(opts.cpu.admin, opts.cpu.database) : null };
  const runs = await Promise.all(
    servers.map((s) =>
      autocannon({
        url: s.base,
        connections: Math.max(1, Math.floor(opts.connections / servers.length)),
        duration: opts.durationSec,
        maxOverallRequests: Math.floor(opts.amount / servers.length),
        requests: [
          {
            method: spec.method ?? "GET",
            path: spec.path,
            headers: spec.headers,
            ...(spec.perRequest
              ? {
                  setupRequest: (req: { headers?: Record<string, string> }) => {
                    const extra = spec.perRequest!();
                    return { ...req, body: extra.body, headers: { ...spec.headers, ...extra.headers } };
                  },
                }
              : {}),
          },
        ],
      }),
    ),
  );
  // Requests still in flight when the clock stopped finish before their round trips are counted.
  await settle(servers);
  const after = await Promise.all(servers.map((s) => s.dbQueries()));
  const appMs = appCpu() - cpuBefore.app;
  const dbMs = opts.cpu && cpuBefore.db ? cpuBetween(cpuBefore.db, await databaseCpu(opts.cpu.admin, opts.cpu.database)) : null;
  const requests = runs.reduce((n, r) => n + r.requests.total, 0);
  const queries = after.reduce((n, q, i) => n + q - before[i]!, 0);
  return {
    name: spec.name,
    rps: Math.round(runs.reduce((n, r) => n + r.requests.total / (r.duration || opts.durationSec), 0)),
    requests,
    p50Ms: Math.max(...runs.map((r) => r.latency.p50)),
    p99Ms: Math.max(...runs.map((r) => r.latency.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors + r.timeouts, 0),
    dbPerRequest: requests ? Math.round((queries / requests) * 100) / 100 : null,
    ...(requests ? { appCpuMsPerRequest: Math.round((appMs / requests) * 100) / 100 } : {}),
    ...(requests && dbMs !== null ? { dbCpuMsPerRequest: Math.round((dbMs / requests) * 100) / 100 } : {}),
  };
}

/** Waits until the servers' database round-trip counts stop moving (no backlog), at most 15 s. */
export async function settle(servers: BenchServer[]) {
  const deadline = Date.now() + 15_000;
  let last = -1;
  let still = 0;
  while (Date.now() < deadline && still < 2) {
    await new Promise((r) => setTimeout(r, 300));
    const now = (await Promise.all(servers.map((s) => s.dbQueries()))).reduce((a, b) => a + b, 0);
    // The auth cache heartbeat and the rate-limit flush may add a round trip or two while idle.
    still = now - last <= 2 * servers.length ? still + 1 : 0;
    last = now;
  }
}
