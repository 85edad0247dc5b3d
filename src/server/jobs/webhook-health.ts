import { checkFailingWebhooks } from "../services/webhooks";
import type { Job } from "./job";

/** Warns about, then disables, webhooks whose attempts have all failed for WEBHOOK_DISABLE_AFTER_HOURS. */
export const webhookHealthJob: Job = {
  name: "webhook-health",
  everyMs: 60_000,
  run: (db) => checkFailingWebhooks(db),
};
