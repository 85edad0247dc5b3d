import { env } from "@/env";
import type { Db } from "../../db/client";
import { logger } from "../../log";
import { type AttemptOptions, attemptDelivery, claimDeliveries, leaseMs } from "./delivery";

export type DeliveryWorkerOptions = AttemptOptions & {
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** Attempts in flight at once to one webhook, so a slow receiver holds at most this many slots. */
  perWebhook?: number;
  /** Only these organizations' deliveries (tests and benchmarks share one database). */
  orgIds?: string[];
};

export type DeliveryWorker = {
  /** Claims due deliveries for the free slots and starts them; resolves once claimed, not once sent. */
  tick(db: Db): Promise<number>;
  /** Waits for the attempts in flight. */
  drain(): Promise<void>;
  inFlight(): number;
};

/**
 * A pool of delivery attempts. Each tick fills free slots with claimed deliveries and returns at
 * once; attempts run concurrently, each bounded by WEBHOOK_TIMEOUT_MS, so one slow receiver never
 * holds up others. A finished attempt claims again straight away while there was more work, so
 * throughput is not limited by the tick interval.
 */
export function createDeliveryWorker(opts: DeliveryWorkerOptions = {}): DeliveryWorker {
  const concurrency = opts.concurrency ?? 32;
  const perWebhook = opts.perWebhook ?? 8;
  const running = new Set<Promise<void>>();
  const perHook = new Map<string, number>();
  let claiming: Promise<number> | null = null;
  let again = false;
  let lastDb: Db | undefined;

  const start = (db: Db, claim: Awaited<ReturnType<typeof claimDeliveries>>[number]) => {
    perHook.set(claim.webhookId, (perHook.get(claim.webhookId) ?? 0) + 1);
    const p = attemptDelivery(db, claim, opts)
      .then(() => undefined)
      .catch((err: Error) =>
        logger().error({ deliveryId: claim.id, err: { message: err.message } }, "webhook attempt could not be recorded"),
      )
      .finally(() => {
        running.delete(p);
        const n = (perHook.get(claim.webhookId) ?? 1) - 1;
        if (n) perHook.set(claim.webhookId, n);
        else perHook.delete(claim.webhookId);
        if (again && lastDb) void tick(lastDb).catch(() => undefined);
      });
    running.add(p);
  };

  async function claimOnce(db: Db): Promise<number> {
    const free = concurrency - running.size;
    if (free <= 0) {
      again = true;
      return 0;
    }
    const skipWebhooks = [...perHook].filter(([, n]) => n >= perWebhook).map(([id]) => id);
    const claims = await claimDeliveries(db, {
      limit: free,
      perWebhook,
      leaseMs: leaseMs(env().WEBHOOK_TIMEOUT_MS),
      skipWebhooks,
      orgIds: opts.orgIds,
    });
    // Work found (or held back by the per-webhook cap) suggests more is due: claim again as each attempt ends.
    again = claims.length > 0 || skipWebhooks.length > 0;
    for (const c of claims) start(db, c);
    return claims.length;
  }

  function tick(db: Db): Promise<number> {
    lastDb = db;
    // One claim at a time per process; concurrent ticks share it.
    claiming ??= claimOnce(db).finally(() => {
      claiming = null;
    });
    return claiming;
  }

  return {
    tick,
    inFlight: () => running.size,
    async drain() {
      again = false;
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}
