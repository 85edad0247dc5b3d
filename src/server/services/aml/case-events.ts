import type { Prisma } from "@/generated/prisma/client.ts";
import type { Tx } from "../../db/client";
import type { AmlCaseEventKind } from "./casework.schema";

/**
 * Appends one event to a case's timeline, inside the transaction of the transition it records
 * (so the timeline never shows what did not commit). `data` holds ids, reasons and statuses,
 * never a comment's text (that stays in aml_case_comments); an officer's reason or notes in it
 * is sealed by the caller under the person's key (case-text.ts).
 */
export async function caseEvent(
  tx: Tx,
  e: { orgId: string; caseId: string; kind: AmlCaseEventKind; actor: string; data?: Prisma.InputJsonObject; at?: Date },
) {
  await tx.amlCaseEvent.create({
    data: { orgId: e.orgId, caseId: e.caseId, kind: e.kind, actor: e.actor, data: e.data ?? {}, ...(e.at ? { createdAt: e.at } : {}) },
  });
}

type EventInput = { kind: AmlCaseEventKind; actor: string; data?: Prisma.InputJsonObject };

/** Several events of one case in one statement, in the order given (`seq` follows it). */
export async function caseEvents(tx: Tx, orgId: string, caseId: string, events: EventInput[]) {
  if (!events.length) return;
  await tx.amlCaseEvent.createMany({ data: events.map((e) => ({ orgId, caseId, kind: e.kind, actor: e.actor, data: e.data ?? {} })) });
}
