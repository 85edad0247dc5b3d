import { randomUUID } from "node:crypto";
import type { Db } from "../../db/client";

type OutboxRow = { id: string; orgId: string; event: string; payload: Record<string, unknown>; createdAt: Date };
type HookRow = { id: string; orgId: string; events: string[]; createdAt: Date; active: boolean };

/**
 * The body a delivery carries, built once when the delivery is created and stored: every attempt
 * and every replay sends (and signs) exactly these bytes. The delivery id goes first and inside the
 * signature, because the X-BI-Delivery-Id header receivers deduplicate on is not signed: a captured
 * delivery sent again under a new header id must not pass as a new delivery.
 */
export function envelopeBody(e: {
  deliveryId: string;
  event: string;
  orgId: string;
  payload: unknown;
  createdAt: Date;
  test?: true;
}): string {
  return JSON.stringify({
    id: e.deliveryId,
    event: e.event,
    tenantId: e.orgId,
    payload: e.payload,
    createdAt: e.createdAt.toISOString(),
    ...(e.test ? { test: true } : {}),
  });
}

const subscribes = (hook: HookRow, event: string) => hook.events.includes("*") || hook.events.includes(event);

/**
 * Fans undispatched outbox events out to deliveries: one per active webhook of the event's
 * organization that subscribes to it and existed when the event happened. Events are claimed
 * with FOR UPDATE SKIP LOCKED, and deliveries are unique per (webhook, event), so any number of
 * dispatchers may run; the deliveries and the `dispatchedAt` mark commit together.
 * `orgId` limits the run to one organization (tests share one database).
 */
export async function dispatchOutboxEvents(
  db: Db,
  opts: { limit?: number; orgId?: string } = {},
): Promise<{ events: number; deliveries: number }> {
  const limit = opts.limit ?? 200;
  const orgId = opts.orgId ?? null;
  return db.$transaction(async (tx) => {
    const events = await tx.$queryRaw<OutboxRow[]>`
      SELECT id::text AS id, "orgId"::text AS "orgId", event, payload, "createdAt"
      FROM outbox_events
      WHERE "dispatchedAt" IS NULL AND (${orgId}::uuid IS NULL OR "orgId" = ${orgId}::uuid)
      ORDER BY "createdAt", id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED`;
    if (!events.length) return { events: 0, deliveries: 0 };
    const orgIds = [...new Set(events.map((e) => e.orgId))];
    // Disabled (not deactivated) webhooks get their deliveries too, recorded as dead, so a recover
    // after enabling sends what happened meanwhile.
    const hooks = await tx.webhook.findMany({
      where: { orgId: { in: orgIds }, OR: [{ active: true }, { disabledAt: { not: null }, deactivatedAt: null }] },
      select: { id: true, orgId: true, events: true, createdAt: true, active: true },
    });
    // One body per delivery, not per event: each names its own delivery id.
    const rows = events.flatMap((e) =>
      hooks
        .filter((h) => h.orgId === e.orgId && subscribes(h, e.event) && h.createdAt.getTime() <= e.createdAt.getTime())
        .map((h) => {
          const id = randomUUID();
          const held = h.active ? {} : { status: "dead" as const, lastError: "The webhook was disabled when this event happened." };
          return {
            id,
            orgId: e.orgId,
            webhookId: h.id,
            eventId: e.id,
            event: e.event,
            eventAt: e.createdAt,
            body: envelopeBody({ ...e, deliveryId: id }),
            ...held,
          };
        }),
    );
    const created = rows.length ? await tx.webhookDelivery.createMany({ data: rows, skipDuplicates: true }) : { count: 0 };
    await tx.outboxEvent.updateMany({ where: { id: { in: events.map((e) => e.id) } }, data: { dispatchedAt: new Date() } });
    return { events: events.length, deliveries: created.count };
  });
}
