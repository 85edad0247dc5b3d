import { createDeliveryWorker } from "../services/webhooks";
import type { Job } from "./job";

/** This process's pool of webhook attempts; the dispatcher nudges it when it creates deliveries. */
export const deliveryWorker = createDeliveryWorker();

/**
 * Sends due webhook deliveries. Every instance and every `npm run worker` may run it: claims use
 * FOR UPDATE SKIP LOCKED with a lease, so a delivery is attempted by one worker at a time and a
 * crashed worker's deliveries are taken over when the lease ends.
 */
export const webhookDeliveryJob: Job = {
  name: "webhook-delivery",
  everyMs: 250,
  run: (db) => deliveryWorker.tick(db),
  stop: () => deliveryWorker.drain(),
};
