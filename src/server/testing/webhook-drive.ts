import { env, resetEnvCache } from "@/env";
import type { Db } from "../db/client";
import type { Resolver } from "../net/ssrf-request";
import { emitEvent } from "../platform/outbox";
import { createDeliveryWorker, dispatchOutboxEvents } from "../services/webhooks";

/** Sets webhook knobs for a test file (loopback receivers, short backoff and timeout). */
export function webhookTestEnv(
  vars: Partial<Record<"WEBHOOK_ALLOW_PRIVATE_URLS" | "WEBHOOK_BACKOFF_BASE_MS" | "WEBHOOK_TIMEOUT_MS" | "WEBHOOK_MAX_ATTEMPTS", string>>,
) {
  for (const [k, v] of Object.entries(vars)) process.env[k] = v;
  resetEnvCache();
  return env();
}

/**
 * Runs the dispatcher and a delivery worker for one organization, as the jobs would (but every
 * 10 ms), until `done` holds; then waits for the attempts in flight.
 */
export async function driveWebhooks(
  db: Db,
  orgId: string,
  done: () => boolean | Promise<boolean>,
  opts: { timeoutMs?: number; resolver?: Resolver; concurrency?: number; ca?: string } = {},
): Promise<void> {
  const worker = createDeliveryWorker({ orgIds: [orgId], resolver: opts.resolver, concurrency: opts.concurrency, ca: opts.ca });
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  try {
    for (;;) {
      await dispatchOutboxEvents(db, { orgId });
      // Checked before claiming, so a state reached (say "failed") is seen before a retry can start.
      if (await done()) return;
      await worker.tick(db);
      if (Date.now() > deadline) throw new Error("webhook deliveries did not reach the expected state in time");
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await worker.drain();
  }
}

/** An `account.unlocked` event of the organization, emitted as a write would (in its own transaction). */
export const emitUnlocked = (db: Db, orgId: string, name = "alice") =>
  db.$transaction((tx) => emitEvent(tx, orgId, "account.unlocked", { accountDid: `did:antelope:sandbox:${name}` }));
