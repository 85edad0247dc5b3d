import type { Prisma } from "@/generated/prisma/client.ts";
import type { Tx } from "../db/client";

/** Event names of the spec's Events table; webhooks subscribe to these (or "*"). */
export type EventName = "account.created" | "kyc.approved" | "identity.bound" | "account.unlocked" | "aml.sanctions_hit";

/**
 * Writes an outgoing event in the caller's transaction (transactional outbox): the change and its
 * event commit together or not at all. The webhook worker fans events out to deliveries.
 */
export async function emitEvent(tx: Tx, orgId: string, event: EventName, payload: Prisma.InputJsonObject) {
  return tx.outboxEvent.create({ data: { orgId, event, payload } });
}
