import { randomUUID } from "node:crypto";
import { Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
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

/**
 * Several events of one case as a statement of a grouped write (one row each, `seq` in the order
 * given): they commit with the transition they record or not at all.
 */
export function caseEventsSql(orgId: string, caseId: string, events: EventInput[], at: Date): Prisma.Sql {
  const rows = events.map(
    (e) =>
      Prisma.sql`(${randomUUID()}::uuid, ${orgId}::uuid, ${caseId}::uuid, ${e.kind}, ${e.actor}, ${JSON.stringify(e.data ?? {})}::jsonb, ${utcTimestamp(at)})`,
  );
  return Prisma.sql`INSERT INTO aml_case_events (id, "orgId", "caseId", kind, actor, data, "createdAt") VALUES ${Prisma.join(rows)}`;
}
