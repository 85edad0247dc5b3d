import client from "prom-client";
import { getDb } from "../../db/client";
import { metrics, statusCountGauge } from "../../metrics";

type WebhookMetrics = {
  attempts: client.Counter<"outcome">;
  latency: client.Histogram<"outcome">;
};

const g = globalThis as unknown as { __biWebhookMetrics?: WebhookMetrics };

/**
 * Webhook metrics in the process registry, which the operator scrapes (BI_METRICS_PORT), never tenants:
 * - bi_webhook_deliveries{status}: deliveries by status, counted in the database at scrape time,
 *   so the figure is the same whichever instance (or separate worker) did the sending;
 * - bi_webhook_attempts_total{outcome} and bi_webhook_attempt_duration_seconds{outcome}: attempts
 *   made by this process (outcome delivered, failed or dead) and their latency.
 */
export function webhookMetrics(): WebhookMetrics {
  if (g.__biWebhookMetrics) return g.__biWebhookMetrics;
  const { registry } = metrics();
  statusCountGauge({
    name: "bi_webhook_deliveries",
    help: "Webhook deliveries by status (all organizations), read from the database at scrape time",
    statuses: ["pending", "failed", "delivered", "dead"],
    count: async () =>
      (await getDb()).$queryRaw<Array<{ status: string; n: number }>>`
        SELECT status::text AS status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`,
  });
  g.__biWebhookMetrics = {
    attempts: new client.Counter({
      name: "bi_webhook_attempts_total",
      help: "Webhook delivery attempts made by this process, by outcome",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    latency: new client.Histogram({
      name: "bi_webhook_attempt_duration_seconds",
      help: "Time from the start of a webhook attempt (DNS included) to the receiver's full answer or the failure",
      labelNames: ["outcome"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
  return g.__biWebhookMetrics;
}
