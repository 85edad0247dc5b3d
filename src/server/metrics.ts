import http from "node:http";
import type { AddressInfo } from "node:net";
import client from "prom-client";

type Metrics = {
  registry: client.Registry;
  requests: client.Counter<"method" | "route" | "status">;
  duration: client.Histogram<"method" | "route">;
  /** The same two series per organization, which each tenant reads at GET /v1/metrics. */
  tenants: client.Registry;
  tenantRequests: client.Counter<"org" | "method" | "route" | "status">;
  tenantDuration: client.Histogram<"org" | "method" | "route">;
};

const g = globalThis as unknown as { __biMetrics?: Metrics; __biDatabaseGauges?: Set<string> };

const REQUESTS = { name: "bi_http_requests_total", help: "HTTP requests answered, by route template and status" };
const DURATION = {
  name: "bi_http_request_duration_seconds",
  help: "Time to answer HTTP requests, by route template",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
};

/**
 * Process-wide metrics (every request, unmatched paths, process and Node metrics) for the operator,
 * and per-organization request metrics for tenants: a tenant sees its own traffic, never the
 * platform's or another tenant's.
 */
export function metrics(): Metrics {
  if (!g.__biMetrics) {
    const registry = new client.Registry();
    const tenants = new client.Registry();
    client.collectDefaultMetrics({ register: registry, prefix: "bi_" });
    g.__biMetrics = {
      registry,
      requests: new client.Counter({ ...REQUESTS, labelNames: ["method", "route", "status"], registers: [registry] }),
      duration: new client.Histogram({ ...DURATION, labelNames: ["method", "route"], registers: [registry] }),
      tenants,
      tenantRequests: new client.Counter({ ...REQUESTS, labelNames: ["org", "method", "route", "status"], registers: [tenants] }),
      tenantDuration: new client.Histogram({ ...DURATION, labelNames: ["org", "method", "route"], registers: [tenants] }),
    };
  }
  return g.__biMetrics;
}

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

/** The Prometheus text exposition of one organization's series, without the organization label. */
export async function tenantMetricsText(orgId: string): Promise<string> {
  const out: string[] = [];
  for (const metric of await metrics().tenants.getMetricsAsJSON()) {
    out.push(`# HELP ${metric.name} ${metric.help}`, `# TYPE ${metric.name} ${metric.type}`);
    for (const v of metric.values) {
      const { org, ...labels } = v.labels as Record<string, string | number>;
      if (org !== orgId) continue;
      const pairs = Object.entries(labels)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => `${k}="${escapeLabel(String(x))}"`);
      const name = (v as { metricName?: string }).metricName ?? metric.name;
      out.push(`${name}${pairs.length ? `{${pairs.join(",")}}` : ""} ${v.value}`);
    }
  }
  return `${out.join("\n")}\n`;
}

/**
 * Marks a gauge of the operator's registry as counted in the database at scrape time: the same
 * cluster-wide figure in every process, so only processes that run the background jobs (the worker,
 * or an instance with BI_RUN_JOBS=true) export it (see `databaseGauges` below).
 */
export function countedInDatabase(name: string): void {
  g.__biDatabaseGauges ??= new Set();
  g.__biDatabaseGauges.add(name);
}

async function exposition(registry: client.Registry, databaseGauges: boolean): Promise<string> {
  const skip = g.__biDatabaseGauges;
  if (databaseGauges || !skip?.size) return registry.metrics();
  const names = registry
    .getMetricsAsArray()
    .map((metric) => metric.name)
    .filter((name) => !skip.has(name));
  const parts = await Promise.all(names.map((name) => registry.getSingleMetricAsString(name)));
  return `${parts.join("\n")}\n`;
}

/**
 * The operator's scrape endpoint (GET /metrics) on its own address, BI_METRICS_PORT: bind it where
 * only the monitoring system reaches (loopback or a private interface), never the public listener.
 * With `health` (the worker, which has no other listener) it also answers GET /healthz: 200 when
 * `health` resolves true, 503 when it resolves false or throws. With `databaseGauges: false` (an app
 * instance that runs no jobs) the gauges counted in the database are left out and not queried.
 */
export async function listenOperatorMetrics(
  port: number,
  host: string,
  opts: { health?: () => Promise<boolean>; databaseGauges?: boolean } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const { health } = opts;
    if (req.method === "GET" && req.url === "/healthz" && health) {
      health().then(
        (ok) => res.writeHead(ok ? 200 : 503, { "content-type": "text/plain" }).end(ok ? "ok\n" : "unavailable\n"),
        () => res.writeHead(503, { "content-type": "text/plain" }).end("unavailable\n"),
      );
      return;
    }
    if (req.method !== "GET" || req.url !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    const m = metrics();
    exposition(m.registry, opts.databaseGauges !== false).then(
      (text) => res.writeHead(200, { "content-type": m.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A gauge in the operator's registry of rows by status, counted in the database at each scrape:
 * the same figure whichever instance or worker did the work. Every status in `statuses` is
 * reported (0 when absent); an unreachable database leaves the gauge empty and the rest of the
 * exposition (and /v1/ready) still answers.
 */
export function statusCountGauge(opts: {
  name: string;
  help: string;
  statuses: readonly string[];
  count: () => Promise<Array<{ status: string; n: number }>>;
}) {
  countedInDatabase(opts.name);
  return new client.Gauge({
    name: opts.name,
    help: opts.help,
    labelNames: ["status"],
    registers: [metrics().registry],
    async collect() {
      let rows: Array<{ status: string; n: number }>;
      try {
        rows = await opts.count();
      } catch {
        this.reset();
        return;
      }
      this.reset();
      for (const s of opts.statuses) this.set({ status: s }, rows.find((r) => r.status === s)?.n ?? 0);
    },
  });
}
