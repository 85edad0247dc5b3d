import type { Db } from "../db/client";
import { logger } from "../log";
import { purgeExpiredIdempotencyKeys } from "../platform/idempotency";
import { purgeExpiredWindows } from "../platform/rate-limit";
import { personDataMigrationJob, runDueErasures, runRetentionPolicies } from "../services/people";
import { syncKeyIndexes } from "../services/screening";
import { amlOverdueJob } from "./aml-overdue";
import { attestationPublishJob, attestationReconcileJob } from "./attestations";
import { bindingKeyWatchJob } from "./binding-key-watch";
import { exportRunnerJob } from "./export-runner";
import type { Job } from "./job";
import { pendingCreatesJob } from "./pending-creates";
import { screeningMonitorJob } from "./screening-monitor";
import { webhookDeliveryJob } from "./webhook-delivery";
import { webhookDispatcherJob, webhookRetentionJob } from "./webhook-dispatcher";
import { webhookHealthJob } from "./webhook-health";
import { webhookRecoverJob } from "./webhook-recover";

export type { Job };

export const jobs: Job[] = [
  { name: "purge-rate-limit-windows", everyMs: 60_000, run: (db) => purgeExpiredWindows(db) },
  { name: "purge-idempotency-keys", everyMs: 10 * 60_000, run: (db) => purgeExpiredIdempotencyKeys(db) },
  {
    name: "purge-used-signatures",
    everyMs: 60_000,
    run: (db) => db.usedSignature.deleteMany({ where: { expiresAt: { lt: new Date() } } }),
  },
  exportRunnerJob,
  webhookDispatcherJob,
  webhookDeliveryJob,
  webhookRetentionJob,
  webhookRecoverJob,
  webhookHealthJob,
  amlOverdueJob,
  screeningMonitorJob,
  pendingCreatesJob,
  bindingKeyWatchJob,
  attestationPublishJob,
  attestationReconcileJob,
  // The key arrays' indexes of large active screening lists, after every import and here for lists
  // imported before them or an import that stopped between its commit and its index (docs/screening.md).
  { name: "screening-key-indexes", everyMs: 10 * 60_000, run: () => syncKeyIndexes() },
  // Scheduled erasures whose hold has ended (docs/data-protection.md, "Holds").
  { name: "person-erasures", everyMs: 10 * 60_000, run: (db) => runDueErasures(db) },
  // The organizations' retention policies (docs/data-protection.md, "Retention").
  { name: "retention", everyMs: 60 * 60_000, run: (db) => runRetentionPolicies(db) },
  // Personal values sealed before person data keys, re-sealed under them (docs/data-protection.md).
  {
    name: "person-data-migration",
    everyMs: 10 * 60_000,
    run: (db) => personDataMigrationJob(db, (p) => logger().info({ job: "person-data-migration", ...p }, "person data re-sealed")),
  },
];

/** Starts every job on its own timer; a failing run is logged and retried on the next tick. Returns a stop function. */
export function startJobs(db: Db, list: Job[] = jobs): () => Promise<void> {
  let stopped = false;
  const running = new Set<Promise<unknown>>();
  const timers = list.map((job) => {
    let busy = false;
    return setInterval(() => {
      if (busy || stopped) return;
      busy = true;
      const p = job
        .run(db)
        .catch((err: Error) => logger().error({ job: job.name, err: { message: err.message } }, "job failed"))
        .finally(() => {
          busy = false;
          running.delete(p);
        });
      running.add(p);
    }, job.everyMs);
  });
  for (const t of timers) t.unref();
  return async () => {
    stopped = true;
    timers.forEach(clearInterval);
    await Promise.allSettled([...running]);
    await Promise.allSettled(list.map((job) => job.stop?.()));
  };
}
