import type { Prisma } from "@/generated/prisma/client.ts";
import type { WebhookEventName } from "../../lib/webhook-events";
import type { Tx } from "../db/client";

/** The events webhooks subscribe to (or "*"): the catalog in src/lib/webhook-events.ts. */
export type EventName = WebhookEventName;

/**
 * Writes an outgoing event in the caller's transaction (transactional outbox): the change and its
 * event commit together or not at all. The webhook worker fans events out to deliveries.
 */
export async function emitEvent(tx: Tx, orgId: string, event: EventName, payload: Prisma.InputJsonObject) {
  return tx.outboxEvent.create({ data: { orgId, event, payload } });
}
