import type { Prisma } from "@/generated/prisma/client.ts";
import type { WebhookEventName, WebhookPayloads } from "../../lib/webhook-events";
import type { Tx } from "../db/client";

/** The events webhooks subscribe to (or "*"): the catalog in src/lib/webhook-events.ts. */
export type EventName = WebhookEventName;

/**
 * Writes an outgoing event in the caller's transaction (transactional outbox): the change and its
 * event commit together or not at all. The webhook worker fans events out to deliveries.
 */
export async function emitEvent<E extends EventName>(tx: Tx, orgId: string, event: E, payload: WebhookPayloads[E]) {
  return tx.outboxEvent.create({ data: { orgId, event, payload: payload as Prisma.InputJsonObject } });
}
