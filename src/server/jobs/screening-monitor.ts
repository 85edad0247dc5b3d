import { enqueuePeriodicRuns, runMonitoring } from "../services/screening";
import type { Job } from "./job";

/** How often the periodic schedules are looked at (queuing is idempotent: one run per day or week). */
const SCHEDULE_EVERY_MS = 60_000;
let lastScheduled = 0;

/**
 * Re-screens approved people and bound accounts: runs queued when a list version became active,
 * and the organizations' daily or weekly re-screens. Every instance and `npm run worker` may run
 * it: runs are claimed with FOR UPDATE SKIP LOCKED and a lease renewed at every batch, so a run
 * is worked by one runner at a time and a crashed runner's run resumes at its cursor elsewhere.
 */
export const screeningMonitorJob: Job = {
  name: "screening-monitor",
  everyMs: 5_000,
  run: async (db) => {
    if (Date.now() - lastScheduled >= SCHEDULE_EVERY_MS) {
      lastScheduled = Date.now();
      await enqueuePeriodicRuns(db);
    }
    return runMonitoring(db, { limit: 1 });
  },
};
