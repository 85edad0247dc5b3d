import { dispatchOutboxEvents, purgeWebhookHistory } from "../services/webhooks";
import type { Job } from "./job";
import { deliveryWorker } from "./webhook-delivery";

/** Fans outbox events out to webhook deliveries (several dispatchers may run: SKIP LOCKED). */
export const webhookDispatcherJob: Job = {
  name: "webhook-dispatcher",
  everyMs: 250,
  run: async (db) => {
    let total = 0;
    // Drain a backlog in batches within one tick, then hand the new deliveries to the worker at once.
    for (let i = 0; i < 10; i++) {
      const r = await dispatchOutboxEvents(db, { limit: 200 });
      total += r.deliveries;
      if (r.events < 200) break;
    }
    if (total) await deliveryWorker.tick(db);
    return total;
  },
};

/** Drops dispatched outbox rows and old delivery bodies past their retention (see webhooks-retention). */
export const webhookRetentionJob: Job = {
  name: "webhook-retention",
  everyMs: 60 * 60_000,
  run: (db) => purgeWebhookHistory(db),
};
