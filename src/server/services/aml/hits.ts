import { randomUUID } from "node:crypto";
import { type Actor, actorId } from "../../context";
import { Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { notFound } from "../../errors";
import { emitEvent, eventInsertSql } from "../../platform/outbox";
import { appendAudit, type GroupedWrite } from "../audit";
import type { ScreeningOutcome, Severity } from "./aml.schema";
import { caseEvents, caseEventsSql } from "./case-events";
import { lockPerson, openCaseOf, priorityFromFlags, worse } from "./case-records";
import type { AmlCaseEventKind, AmlSlaSettings } from "./casework.schema";
import { credentialsFollowCase } from "./credential-effects";
import { buildEvidence, type ProviderFinding, type VerifiedSubject } from "./evidence";
import { dueAtFor, slaHours } from "./sla";

type AuditInput = Parameters<typeof appendAudit>[2];

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

/** A hit's severity (priority from its flags) and its score, 0–100. */
const hitFigures = (outcome: ScreeningOutcome) => ({
  severity: priorityFromFlags(outcome, outcome.severity ?? "low"),
  score: clampScore(outcome.score),
});

type CaseEventInput = { kind: AmlCaseEventKind; actor: string; data: Prisma.InputJsonObject };

/** The case timeline a hit writes: opened (a new case), hit_added, reopened (a withdrawn proposal), webhook_sent. */
function hitTimeline(
  actor: string,
  h: {
    opened: boolean;
    proposalWithdrawn: boolean;
    hitId: string;
    severity: Severity;
    priority: Severity;
    score: number;
    resultId: string | null;
  },
): CaseEventInput[] {
  return [
    ...(h.opened ? [{ kind: "opened" as const, actor, data: { priority: h.priority, source: "screening" } }] : []),
    {
      kind: "hit_added",
      actor,
      data: { hitId: h.hitId, severity: h.severity, priority: h.priority, score: h.score, resultId: h.resultId },
    },
    ...(h.proposalWithdrawn
      ? [{ kind: "reopened" as const, actor, data: { why: "A new hit arrived while a clear awaited approval." } }]
      : []),
    { kind: "webhook_sent", actor, data: { event: "aml.sanctions_hit", severity: h.severity } },
  ];
}

/** The `aml.sanctions_hit` audit entry. */
function hitEntry(
  outcome: ScreeningOutcome,
  subjectDid: string,
  h: {
    caseId: string;
    open: { priority: Severity } | null;
    severity: Severity;
    priority: Severity;
    score: number;
    proposalWithdrawn: boolean;
  },
): AuditInput {
  return {
    action: "aml.sanctions_hit",
    subjectType: "person",
    subject: subjectDid,
    data: {
      caseId: h.caseId,
      opened: !h.open,
      severity: h.severity,
      priority: h.priority,
      sanctions: outcome.sanctions,
      pep: outcome.pep,
      score: h.score,
      resultId: outcome.resultId ?? null,
      ...(h.open ? { previousPriority: h.open.priority, proposalWithdrawn: h.proposalWithdrawn } : {}),
    },
  };
}

/** The columns a proposal awaiting approval loses when a new hit sends its case back to `open`. */
const PROPOSAL_WITHDRAWN = { status: "open" as const, proposedBy: null, proposedAt: null, proposeReason: null, proposedAssignee: null };

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
  const { severity, score } = hitFigures(outcome);

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
        ...(proposalWithdrawn ? PROPOSAL_WITHDRAWN : {}),
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
  await caseEvents(
    tx,
    orgId,
    caseId,
    hitTimeline(actor, { opened: !open, proposalWithdrawn, hitId: hit.id, severity, priority, score, resultId: outcome.resultId ?? null }),
  );
  // A sanctions flag suspends the person's credentials until the case is cleared or confirmed.
  if (outcome.sanctions) {
    await credentialsFollowCase(tx, { orgId, caseId, personId, change: "suspend", reason: "sanctions_flag", actor });
  }
  await appendAudit(tx, { orgId, actor }, hitEntry(outcome, subjectDid, { caseId, open, severity, priority, score, proposalWithdrawn }));
  return { caseId, priority, opened: !open, proposalWithdrawn };
}

function hitReason(o: ScreeningOutcome): string {
  const lists = [o.sanctions ? "sanctions" : null, o.pep ? "PEP" : null].filter(Boolean).join(" and ");
  return `Screening match on a ${lists} list${o.resultId ? ` (screening result ${o.resultId})` : ""}`;
}

/** The person's open case as a grouped hit reads it: `version` (its row's xmin) guards the escalation. */
export type OpenCaseRead = {
  id: string;
  priority: Severity;
  status: string;
  createdAtMs: number;
  dueAtMs: number | null;
  version: string;
};

/**
 * recordScreeningHit as writes of a caller's grouped statement (a KYC review, services/kyc/review.ts),
 * from what the caller read: the person's open case (or none) and the SLA hours, with the
 * evidence already composed (composeEvidence). The flags and risk score go into the caller's own
 * update of the person (`personSets`, raised, never lowered), whose guard must be the person's
 * row version read with the open case: a hit or case opened meanwhile (each writes the person's
 * row) then fails the statement, and the caller reads again. The case is opened, or escalated
 * under its own row version, before the chain head moves (the lock order person, case, head);
 * then the hit, the timeline, the `aml.sanctions_hit` event and the entry the caller appends.
 * A sanctions hit on a person with bindings is not for this path: their suspension runs in a
 * transaction (credentialsFollowCase), so the caller applies such a hit with recordScreeningHit.
 */
export function screeningHitWrites(input: {
  orgId: string;
  personId: string;
  subjectDid: string;
  outcome: ScreeningOutcome;
  actor: string;
  open: OpenCaseRead | null;
  sla: AmlSlaSettings;
  evidence: { evidence: unknown; searchText: string | null };
  now: Date;
}): { personSets: Prisma.Sql[]; writes: GroupedWrite[]; entry: { actor: string; input: AuditInput }; caseId: string } {
  const { orgId, personId, subjectDid, outcome, actor, open, sla, now } = input;
  const { severity, score } = hitFigures(outcome);
  const t = utcTimestamp(now);
  const caseId = open?.id ?? randomUUID();
  const priority = open ? worse(open.priority, severity) : severity;
  const proposalWithdrawn = open?.status === "pending_approval";
  const writes: GroupedWrite[] = [];
  if (open) {
    // A worse priority brings the deadline forward, never back.
    const due = dueAtFor(new Date(open.createdAtMs), priority, sla);
    const sets = [
      Prisma.sql`priority = ${priority}::"Severity"`,
      Prisma.sql`"updatedAt" = ${t}`,
      ...(open.dueAtMs === null || due.getTime() < open.dueAtMs ? [Prisma.sql`"dueAt" = ${utcTimestamp(due)}`] : []),
      ...(proposalWithdrawn
        ? [
            Prisma.sql`status = ${PROPOSAL_WITHDRAWN.status}::"AmlCaseStatus", "proposedBy" = NULL, "proposedAt" = NULL,
                       "proposeReason" = NULL, "proposedAssignee" = NULL`,
          ]
        : []),
    ];
    writes.push({
      sql: Prisma.sql`UPDATE aml_cases SET ${Prisma.join(sets, ", ")}
                      WHERE id = ${open.id}::uuid AND "orgId" = ${orgId}::uuid AND xmin = ${open.version}::xid`,
      rows: 1,
      beforeHead: true,
    });
  } else {
    writes.push({
      sql: Prisma.sql`INSERT INTO aml_cases (id, "orgId", "subjectDid", "personId", priority, reason, "openedBy", "dueAt", "createdAt", "updatedAt")
                      VALUES (${caseId}::uuid, ${orgId}::uuid, ${subjectDid}, ${personId}::uuid, ${priority}::"Severity", ${hitReason(outcome)},
                              ${actor}, ${utcTimestamp(dueAtFor(now, priority, sla))}, ${t}, ${t})`,
      rows: 1,
      beforeHead: true,
    });
  }
  const hitId = randomUUID();
  const resultId = outcome.resultId ?? null;
  writes.push(
    {
      sql: Prisma.sql`INSERT INTO aml_case_hits (id, "orgId", "caseId", "resultId", severity, sanctions, pep, score, evidence, "searchText", "createdAt")
                      VALUES (${hitId}::uuid, ${orgId}::uuid, ${caseId}::uuid, ${resultId}, ${severity}::"Severity", ${outcome.sanctions}, ${outcome.pep},
                              ${score}, ${JSON.stringify(input.evidence.evidence)}::jsonb, ${input.evidence.searchText}, ${t})`,
      rows: 1,
    },
    { sql: eventInsertSql(orgId, "aml.sanctions_hit", { personDid: subjectDid, severity }, now), rows: 1 },
  );
  const timeline = hitTimeline(actor, { opened: !open, proposalWithdrawn, hitId, severity, priority, score, resultId });
  writes.push({ sql: caseEventsSql(orgId, caseId, timeline, now), rows: timeline.length });
  return {
    personSets: [
      Prisma.sql`"pepFlag" = "pepFlag" OR ${outcome.pep}`,
      Prisma.sql`"sanctionsFlag" = "sanctionsFlag" OR ${outcome.sanctions}`,
      Prisma.sql`"riskScore" = GREATEST("riskScore", ${score}::int)`,
    ],
    writes,
    entry: { actor, input: hitEntry(outcome, subjectDid, { caseId, open, severity, priority, score, proposalWithdrawn }) },
    caseId,
  };
}
