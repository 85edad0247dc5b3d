import { runExportJobs } from "../services/audit";
import type { Job } from "./job";

export { runExportJobs };

/** Jobs each tick may take per instance; more instances share the queue through SKIP LOCKED. */
const JOBS_PER_TICK = 5;

/** Builds queued compliance exports (queued → running → completed | failed). */
export const exportRunnerJob: Job = {
  name: "export-runner",
  everyMs: 2_000,
  run: (db) => runExportJobs(db, { limit: JOBS_PER_TICK }),
};
