import type { Db } from "../../db/client";

/** Dispatched outbox rows are kept this long (for investigation), then deleted: deliveries hold their own bodies. */
export const OUTBOX_RETENTION_DAYS = 7;
/** Bodies of finished deliveries (delivered or dead) are kept this long for replay; then replay answers 409 payload_unavailable. */
export const DELIVERY_BODY_RETENTION_DAYS = 30;
const BATCH = 5_000;

/**
 * Purges webhook history past its retention, in bounded batches so no run holds locks for long.
 * The delivery rows themselves stay (status, attempts, lastError): the payload and the attempt log go.
 */
export async function purgeWebhookHistory(
  db: Db,
  opts: { now?: Date; orgId?: string } = {},
): Promise<{ outbox: number; bodies: number; attempts: number }> {
  const now = opts.now ?? new Date();
  const org = opts.orgId ? { orgId: opts.orgId } : {};
  const outboxBefore = new Date(now.getTime() - OUTBOX_RETENTION_DAYS * 86_400_000);
  const bodiesBefore = new Date(now.getTime() - DELIVERY_BODY_RETENTION_DAYS * 86_400_000);
  // Ids first, then a write by id: bounded batches, with Prisma binding the timestamps.
  const oldEvents = await db.outboxEvent.findMany({
    where: { ...org, dispatchedAt: { lt: outboxBefore } },
    select: { id: true },
    take: BATCH,
  });
  const outbox = oldEvents.length ? (await db.outboxEvent.deleteMany({ where: { id: { in: oldEvents.map((e) => e.id) } } })).count : 0;
  const oldBodies = await db.webhookDelivery.findMany({
    where: { ...org, status: { in: ["delivered", "dead"] }, body: { not: null }, updatedAt: { lt: bodiesBefore } },
    select: { id: true },
    take: BATCH,
  });
  const bodies = oldBodies.length
    ? (
        await db.webhookDelivery.updateMany({
          where: { id: { in: oldBodies.map((d) => d.id) }, status: { in: ["delivered", "dead"] } },
          data: { body: null },
        })
      ).count
    : 0;
  // Attempts (with the receivers' answers) go with the bodies: what they explain is no longer replayable.
  const oldAttempts = await db.webhookAttempt.findMany({ where: { ...org, at: { lt: bodiesBefore } }, select: { id: true }, take: BATCH });
  const attempts = oldAttempts.length
    ? (await db.webhookAttempt.deleteMany({ where: { id: { in: oldAttempts.map((a) => a.id) } } })).count
    : 0;
  return { outbox, bodies, attempts };
}
