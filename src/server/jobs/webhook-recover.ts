import { runRecoverJobs } from "../services/webhooks";
import type { Job } from "./job";

/**
 * Works queued webhook recovers (re-sending an endpoint's failed and dead deliveries in order).
 * Jobs are claimed with FOR UPDATE SKIP LOCKED and a lease renewed at every delivery, so any
 * number of instances may run it and a crashed runner's job goes on from its cursor.
 */
export const webhookRecoverJob: Job = {
  name: "webhook-recover",
  everyMs: 1_000,
  run: (db) => runRecoverJobs(db, { limit: 1 }),
};
