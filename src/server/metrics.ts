import client from "prom-client";

type Metrics = {
  registry: client.Registry;
  requests: client.Counter<"method" | "route" | "status">;
  duration: client.Histogram<"method" | "route">;
};

const g = globalThis as unknown as { __biMetrics?: Metrics };

/** One registry per process: request counts by route template and status, latency, process metrics. */
export function metrics(): Metrics {
  if (!g.__biMetrics) {
    const registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry, prefix: "bi_" });
    g.__biMetrics = {
      registry,
      requests: new client.Counter({
        name: "bi_http_requests_total",
        help: "HTTP requests answered, by route template and status",
        labelNames: ["method", "route", "status"],
        registers: [registry],
      }),
      duration: new client.Histogram({
        name: "bi_http_request_duration_seconds",
        help: "Time to answer HTTP requests, by route template",
        labelNames: ["method", "route"],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
    };
  }
  return g.__biMetrics;
}
