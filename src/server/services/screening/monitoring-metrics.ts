import client from "prom-client";
import { getDb } from "../../db/client";
import { countedInDatabase, metrics, statusCountGauge } from "../../metrics";

type MonitoringMetrics = {
  screened: client.Counter<"subject">;
  hits: client.Counter<"subject">;
  batch: client.Histogram<"phase">;
};

const g = globalThis as unknown as { __biMonitoringMetrics?: MonitoringMetrics };

/**
 * Ongoing screening in the operator's registry (never tenants'):
 * - bi_screening_monitor_runs{status}: runs by status, counted in the database at scrape time;
 * - bi_screening_monitor_progress: people and accounts screened so far by running runs (the run
 *   rows' counts, so any instance's scrape shows the same progress);
 * - bi_screening_monitor_screened_total{subject} and bi_screening_monitor_hits_total{subject}:
 *   people and accounts re-screened by this process, and the new matches found;
 * - bi_screening_monitor_batch_duration_seconds{phase}: one committed batch.
 */
export function monitoringMetrics(): MonitoringMetrics {
  if (g.__biMonitoringMetrics) return g.__biMonitoringMetrics;
  const { registry } = metrics();
  statusCountGauge({
    name: "bi_screening_monitor_runs",
    help: "Screening re-screen runs by status (all organizations), read from the database at scrape time",
    statuses: ["queued", "running", "completed", "failed"],
    count: async () =>
      (await getDb()).$queryRaw<Array<{ status: string; n: number }>>`
        SELECT status::text AS status, count(*)::int AS n FROM screening_monitor_runs GROUP BY status`,
  });
  new client.Gauge({
    name: "bi_screening_monitor_progress",
    help: "Subjects screened so far by running re-screen runs (all organizations), read from the database at scrape time",
    registers: [registry],
    async collect() {
      try {
        const db = await getDb();
        const [row] = await db.$queryRaw<Array<{ n: number }>>`
          SELECT coalesce(sum("personsScreened" + "accountsScreened"), 0)::int AS n FROM screening_monitor_runs WHERE status = 'running'`;
        this.set(row?.n ?? 0);
      } catch {
        this.reset();
      }
    },
  });
  countedInDatabase("bi_screening_monitor_progress");
  g.__biMonitoringMetrics = {
    screened: new client.Counter({
      name: "bi_screening_monitor_screened_total",
      help: "People and accounts re-screened by this process's monitoring runs",
      labelNames: ["subject"],
      registers: [registry],
    }),
    hits: new client.Counter({
      name: "bi_screening_monitor_hits_total",
      help: "New matches recorded by this process's monitoring runs",
      labelNames: ["subject"],
      registers: [registry],
    }),
    batch: new client.Histogram({
      name: "bi_screening_monitor_batch_duration_seconds",
      help: "Time to screen and commit one batch of a monitoring run",
      labelNames: ["phase"],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
  return g.__biMonitoringMetrics;
}
