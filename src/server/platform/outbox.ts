import { randomUUID } from "node:crypto";
import type { WebhookEventName, WebhookPayloads } from "../../lib/webhook-events";
import { Prisma, type Tx } from "../db/client";
import { timestampTz } from "../db/sql";

/** The events webhooks subscribe to (or "*"): the catalog in src/lib/webhook-events.ts. */
export type EventName = WebhookEventName;

/**
 * Writes an outgoing event in the caller's transaction (transactional outbox): the change and its
 * event commit together or not at all. The webhook worker fans events out to deliveries.
 */
export async function emitEvent<E extends EventName>(tx: Tx, orgId: string, event: E, payload: WebhookPayloads[E]) {
  return tx.outboxEvent.create({ data: { orgId, event, payload: payload as Prisma.InputJsonObject } });
}

/**
 * The same event as a statement the caller runs as part of its own (a grouped audit append's
 * writes): it commits with that statement or not at all.
 */
export function eventInsertSql<E extends EventName>(orgId: string, event: E, payload: WebhookPayloads[E], at = new Date()): Prisma.Sql {
  return Prisma.sql`INSERT INTO outbox_events (id, "orgId", event, payload, "createdAt")
    VALUES (${randomUUID()}::uuid, ${orgId}::uuid, ${event}, ${JSON.stringify(payload)}::jsonb, ${timestampTz(at)})`;
}
