import type { AmlCase, AmlCaseHit } from "@/generated/prisma/client.ts";
import type { DbOrTx, Tx } from "../../db/client";
import { conflict, forbidden, notFound } from "../../errors";
import { isUuid } from "../../platform/ids";
import { type AmlCaseView, type CaseAgeing, SEVERITIES, type Severity } from "./aml.schema";
import { caseKeys, openCaseText } from "./case-text";
import { evidenceKeyOwner, evidenceView } from "./evidence";

// Shared pieces of the AML case state machine (aml.ts) and of screening hits (aml-hits.ts).

export { OPEN_STATUSES } from "../../platform/aml-case-status";

import { OPEN_STATUSES } from "../../platform/aml-case-status";

export const worse = (a: Severity, b: Severity): Severity => (SEVERITIES.indexOf(a) >= SEVERITIES.indexOf(b) ? a : b);

/** Priority of a case from what is flagged (docs/api/contract-decisions.md §3: sanctions critical, PEP high). */
export const priorityFromFlags = (f: { sanctions: boolean; pep: boolean }, fallback: Severity = "low"): Severity =>
  f.sanctions ? "critical" : f.pep ? worse("high", fallback) : fallback;

/**
 * Locks the person's row for the rest of the transaction. Every change to a person's cases and
 * flags takes this lock FIRST (then the case row), so case transitions, screening hits and flag
 * changes on one subject run one after another and can never deadlock with each other.
 * FOR NO KEY UPDATE, so rows referencing the person (tokens, sessions) can still be inserted.
 */
export async function lockPerson(tx: Tx, orgId: string, personId: string) {
  const rows = await tx.$queryRaw<{ id: string; pepFlag: boolean; sanctionsFlag: boolean; riskScore: number; country: string | null }[]>`
    SELECT id, "pepFlag", "sanctionsFlag", "riskScore", country FROM people
    WHERE id = ${personId}::uuid AND "orgId" = ${orgId}::uuid FOR NO KEY UPDATE`;
  return rows[0] ?? null;
}

/**
 * Writes the person's row (its updatedAt) when a case is opened under the person's lock alone: the
 * grouped writes that open a case without a lock (a clear opening one by hand, a KYC review's
 * hit) are guarded by the person's row version, so every case opened must change that version.
 */
export async function touchPerson(tx: Tx, orgId: string, personId: string) {
  await tx.$executeRaw`UPDATE people SET "updatedAt" = now() AT TIME ZONE 'UTC' WHERE id = ${personId}::uuid AND "orgId" = ${orgId}::uuid`;
}

/** Locks one case row (after its person, see lockPerson) and reads it fresh. */
export async function lockCase(tx: Tx, orgId: string, caseId: string): Promise<AmlCase | null> {
  await tx.$queryRaw`SELECT id FROM aml_cases WHERE id = ${caseId}::uuid AND "orgId" = ${orgId}::uuid FOR NO KEY UPDATE`;
  return tx.amlCase.findFirst({ where: { id: caseId, orgId } });
}

/** The subject's case that is still open or awaiting approval (at most one, kept so by lockPerson). */
export const openCaseOf = (db: DbOrTx, orgId: string, personId: string) =>
  db.amlCase.findFirst({ where: { orgId, personId, status: { in: [...OPEN_STATUSES] } }, orderBy: { createdAt: "asc" } });

/** Lifts both flags and resets the risk score: the effect of a clear (contract state table). */
export async function liftFlags(tx: Tx, orgId: string, personId: string | null) {
  if (!personId) return;
  await tx.person.updateMany({ where: { id: personId, orgId }, data: { pepFlag: false, sanctionsFlag: false, riskScore: 0 } });
}

/** Who closed a case: the confirmer, the approver, or (a clear without four-eyes) the proposer. */
export const closerOf = (c: AmlCase) => c.confirmedBy ?? c.approvedBy ?? c.proposedBy;

export const caseClosed = () => conflict("case_closed", "This AML case is already closed.");
export const notAwaitingApproval = () => conflict("not_awaiting_approval", "This AML case is not awaiting approval.");
export const sameApprover = () =>
  forbidden("same_approver", "The approver of an AML clear must be a different identity than its proposer.");
export const caseNotFound = () => notFound("AML case");
export const assigneeProposed = () =>
  forbidden("assignee_proposed", "The approver of an AML clear must be a different identity than the assignee who proposed it.");

/** Finds a case of the caller's organization and locks its person, then the case itself (lock order of lockPerson). */
export async function lockedCase(tx: Tx, orgId: string, caseId: string) {
  const ref = isUuid(caseId) ? await tx.amlCase.findFirst({ where: { id: caseId, orgId }, select: { personId: true } }) : null;
  if (!ref) throw caseNotFound();
  if (ref.personId) await lockPerson(tx, orgId, ref.personId);
  const c = await lockCase(tx, orgId, caseId);
  if (!c) throw caseNotFound();
  return c;
}

/**
 * How a case stands against its deadline: overdue once dueAt has passed, due_soon in the last
 * quarter of its window, on_time before; null for a closed case or one without a deadline.
 */
export function ageingOf(c: Pick<AmlCase, "status" | "createdAt" | "dueAt">, now: Date): CaseAgeing | null {
  if (!c.dueAt || !(OPEN_STATUSES as readonly string[]).includes(c.status)) return null;
  const left = c.dueAt.getTime() - now.getTime();
  if (left <= 0) return "overdue";
  const window = c.dueAt.getTime() - c.createdAt.getTime();
  return left <= window / 4 ? "due_soon" : "on_time";
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * A case as the API shows it. `keys` holds the sealed data keys (person_keys.keySealed) of the
 * case's person and of its hits' evidence: what officers wrote and the evidence's subject are
 * opened with them ("[erased]" and null fields once the person is erased).
 */
export function caseView(
  c: AmlCase,
  hits: AmlCaseHit[] = [],
  now: Date = new Date(),
  keys: Map<string, string | null> = new Map(),
): AmlCaseView {
  const key = c.personId ? keys.get(c.personId) : null;
  const text = <T extends string | null>(v: T) => openCaseText(v, c.personId, key) as T;
  return {
    caseId: c.id,
    status: c.status,
    priority: c.priority,
    subjectDid: c.subjectDid,
    reason: text(c.reason),
    openedBy: c.openedBy,
    openedAt: c.createdAt.toISOString(),
    proposedBy: c.proposedBy,
    proposedAt: iso(c.proposedAt),
    proposeReason: text(c.proposeReason),
    approvedBy: c.approvedBy,
    approvedAt: iso(c.approvedAt),
    approveNotes: text(c.approveNotes),
    confirmedBy: c.confirmedBy,
    confirmedAt: iso(c.confirmedAt),
    confirmReason: text(c.confirmReason),
    closedAt: iso(c.closedAt),
    assigneeEmail: c.assigneeEmail,
    assignedAt: iso(c.assignedAt),
    dueAt: iso(c.dueAt),
    ageing: ageingOf(c, now),
    hits: hits.map((h) => ({
      resultId: h.resultId,
      severity: h.severity,
      sanctions: h.sanctions,
      pep: h.pep,
      score: h.score,
      createdAt: h.createdAt.toISOString(),
      evidence: evidenceView(h.evidence, keys.get(evidenceKeyOwner(h.evidence) ?? "")),
    })),
  };
}

/** Cases with their hits, in the order given. */
export async function withHits(db: DbOrTx, orgId: string, cases: AmlCase[], now: Date = new Date()): Promise<AmlCaseView[]> {
  if (!cases.length) return [];
  const hits = await db.amlCaseHit.findMany({ where: { orgId, caseId: { in: cases.map((c) => c.id) } }, orderBy: { createdAt: "asc" } });
  // The data keys the cases' texts and the hits' evidence are sealed under, read in one query
  // (never cached: erasure destroys them).
  const keys = await caseKeys(db, [...cases.map((c) => c.personId), ...hits.map((h) => evidenceKeyOwner(h.evidence))]);
  return cases.map((c) =>
    caseView(
      c,
      hits.filter((h) => h.caseId === c.id),
      now,
      keys,
    ),
  );
}
