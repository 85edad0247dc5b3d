import { type Actor, actorId } from "../../context";
import type { Tx } from "../../db/client";
import { notFound } from "../../errors";
import { emitEvent } from "../../platform/outbox";
import { appendAudit } from "../audit";
import type { ScreeningOutcome, Severity } from "./aml.schema";
import { caseEvents } from "./case-events";
import { lockPerson, openCaseOf, priorityFromFlags, worse } from "./case-records";
import { credentialsFollowCase } from "./credential-effects";
import { buildEvidence, type ProviderFinding, type VerifiedSubject } from "./evidence";
import { dueAtFor, slaHours } from "./sla";

export type ScreeningHitInput = {
  orgId: string;
  personId: string;
  subjectDid: string;
  outcome: ScreeningOutcome;
  actor: Actor | string;
  /** The identity KYC verified (name, birth date, country), frozen into the hit's evidence. */
  subject?: VerifiedSubject;
  /** What a KYC provider itself reported, when it raised the hit. */
  provider?: ProviderFinding;
};

export type ScreeningHitRecorded = { caseId: string; priority: Severity; opened: boolean; proposalWithdrawn: boolean } | null;

const clampScore = (n: number) => Math.max(0, Math.min(100, Math.round(Number.isFinite(n) ? n : 0)));

/**
 * Records a screening match on a person inside the caller's transaction (KYC approval, on-demand
 * screening): raises the person's flags and risk score, opens a case (or escalates the open one)
 * with priority from severity, links the screening result to the case, emits `aml.sanctions_hit`
 * and appends the audit entry, all committing with the caller's change.
 *
 * Lock order: this locks the person row first, like every AML transition. Call it before
 * appending the caller's own audit entry (which locks the audit chain head), so two transactions
 * never take those two locks in opposite orders.
 *
 * A new hit on a case awaiting a second approval sends it back to `open`: the proposal was made
 * without this evidence, and approving it would lift a flag nobody has reviewed.
 *
 * Every hit keeps its evidence (services/aml/evidence.ts) and writes the case's timeline: opened,
 * hit_added, reopened (a withdrawn proposal) and webhook_sent, with the deadline from the SLA.
 *
 * Returns null (and writes nothing) when the outcome flags nothing.
 */
export async function recordScreeningHit(tx: Tx, input: ScreeningHitInput): Promise<ScreeningHitRecorded> {
  const { orgId, personId, subjectDid, outcome } = input;
  if (!outcome.sanctions && !outcome.pep) return null;
  const actor = typeof input.actor === "string" ? input.actor : actorId(input.actor);
  const severity = priorityFromFlags(outcome, outcome.severity ?? "low");
  const score = clampScore(outcome.score);

  const person = await lockPerson(tx, orgId, personId);
  if (!person) throw notFound("Person");
  await tx.person.update({
    where: { id: personId },
    data: {
      pepFlag: person.pepFlag || outcome.pep,
      sanctionsFlag: person.sanctionsFlag || outcome.sanctions,
      riskScore: Math.max(person.riskScore, score),
    },
  });

  const open = await openCaseOf(tx, orgId, personId);
  const hours = await slaHours(tx, orgId);
  const now = new Date();
  let caseId: string;
  let priority: Severity;
  let proposalWithdrawn = false;
  if (open) {
    priority = worse(open.priority, severity);
    proposalWithdrawn = open.status === "pending_approval";
    // A worse priority brings the deadline forward, never back.
    const due = dueAtFor(open.createdAt, priority, hours);
    await tx.amlCase.update({
      where: { id: open.id },
      data: {
        priority,
        ...(!open.dueAt || due < open.dueAt ? { dueAt: due } : {}),
        ...(proposalWithdrawn
          ? { status: "open" as const, proposedBy: null, proposedAt: null, proposeReason: null, proposedAssignee: null }
          : {}),
      },
    });
    caseId = open.id;
  } else {
    priority = severity;
    const created = await tx.amlCase.create({
      data: {
        orgId,
        subjectDid,
        personId,
        priority,
        reason: hitReason(outcome),
        openedBy: actor,
        createdAt: now,
        dueAt: dueAtFor(now, priority, hours),
      },
    });
    caseId = created.id;
  }
  const { evidence, searchText } = await buildEvidence(tx, {
    orgId,
    personId,
    personCountry: person.country,
    outcome,
    subject: input.subject,
    provider: input.provider,
  });
  const hit = await tx.amlCaseHit.create({
    data: {
      orgId,
      caseId,
      resultId: outcome.resultId ?? null,
      severity,
      sanctions: outcome.sanctions,
      pep: outcome.pep,
      score,
      evidence,
      searchText,
    },
  });
  await emitEvent(tx, orgId, "aml.sanctions_hit", { personDid: subjectDid, severity });
  await caseEvents(tx, orgId, caseId, [
    ...(open ? [] : [{ kind: "opened" as const, actor, data: { priority, source: "screening" } }]),
    { kind: "hit_added", actor, data: { hitId: hit.id, severity, priority, score, resultId: outcome.resultId ?? null } },
    ...(proposalWithdrawn
      ? [{ kind: "reopened" as const, actor, data: { why: "A new hit arrived while a clear awaited approval." } }]
      : []),
    { kind: "webhook_sent", actor, data: { event: "aml.sanctions_hit", severity } },
  ]);
  // A sanctions flag suspends the person's credentials until the case is cleared or confirmed.
  if (outcome.sanctions) {
    await credentialsFollowCase(tx, { orgId, caseId, personId, change: "suspend", reason: "sanctions_flag", actor });
  }
  await appendAudit(
    tx,
    { orgId, actor },
    {
      action: "aml.sanctions_hit",
      subjectType: "person",
      subject: subjectDid,
      data: {
        caseId,
        opened: !open,
        severity,
        priority,
        sanctions: outcome.sanctions,
        pep: outcome.pep,
        score,
        resultId: outcome.resultId ?? null,
        ...(open ? { previousPriority: open.priority, proposalWithdrawn } : {}),
      },
    },
  );
  return { caseId, priority, opened: !open, proposalWithdrawn };
}

function hitReason(o: ScreeningOutcome): string {
  const lists = [o.sanctions ? "sanctions" : null, o.pep ? "PEP" : null].filter(Boolean).join(" and ");
  return `Screening match on a ${lists} list${o.resultId ? ` (screening result ${o.resultId})` : ""}`;
}
