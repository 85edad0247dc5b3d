import { randomBytes, randomUUID } from "node:crypto";
import type { AmlCase } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { openKey, personKeyInsertSql } from "../../crypto/person-box";
import { type Db, Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { forbidden, notFound } from "../../errors";
import { personDidOf, personIdFromDid } from "../../platform/account-ref";
import { appendAudit, appendAuditGrouped, type GroupedWrite, isFreeText, lostToConcurrentWrite } from "../audit";
import { samePerson, signedInWithOwnCredentials } from "../org";
import type { ApproveClearInput, ClearAmlInput, ConfirmAmlInput } from "./aml.schema";
import { caseEvent, caseEventsSql } from "./case-events";
import {
  assigneeProposed,
  caseClosed,
  closerOf,
  liftFlags,
  lockedCase,
  lockPerson,
  notAwaitingApproval,
  OPEN_STATUSES,
  openCaseOf,
  priorityFromFlags,
  sameApprover,
  touchPerson,
  withHits,
} from "./case-records";
import { caseTexts, sealerFor } from "./case-text";
import type { AmlSlaSettings, ListCasesQuery } from "./casework.schema";
import { credentialsFollowCase, type LiftableBinding, liftableBindingsSql, liftWrites, lockPersonBindings } from "./credential-effects";
import { searchTerms } from "./evidence";
import { DEFAULT_SLA_HOURS, dueAtFor, slaHours } from "./sla";

export { recordScreeningHit } from "./hits";

// The AML case state machine of the contract (States and transitions, "AML case"). Every
// transition locks the subject's person row first, then the case row, re-reads under the lock and
// writes with a conditional update: parallel calls on one case run one after another and the
// loser sees the winner's state (409), never a half-applied one. Flags change only in the same
// transaction as the case that justifies it.

const TX = { timeout: 20_000, maxWait: 10_000 } as const;

/**
 * How long after a subject's case closed a clear that finds no open case still counts as racing
 * that close (docs/decisions.md, "AML cases"): the same identity's clear is a retry and gets the
 * answer it already had; another identity's is 409 case_closed. After it, a clear with no open
 * case opens one by hand, as the contract's state table says. A window rather than "since this
 * call began", so the answer does not depend on when each request was scheduled.
 */
export const CLEAR_SETTLED_WINDOW_MS = 5 * 60_000;

type ClearResult = { cleared: boolean; pendingApproval: boolean; caseId: string; subjectDid: string };
const result = (c: AmlCase, subjectDid: string): ClearResult => ({
  cleared: c.status === "cleared",
  pendingApproval: c.status === "pending_approval",
  caseId: c.id,
  subjectDid,
});

/**
 * POST /v1/aml/clear. Clears the subject's open case (opening one by hand when there is none),
 * or, when the organization requires a second approval, moves it to pending_approval with the
 * flags still up. 409 case_closed when the case this call was about got closed by someone else
 * while it ran.
 *
 * Two database round trips on the usual paths (docs/performance.md, "Product paths"): one read of
 * everything the decision needs (clearRead), then the transition as ONE grouped statement of the
 * organization's group commit: the case, the flags, the timeline, the credentials' status, the
 * events and the audit entries commit together or not at all. The row locks of a transaction are
 * replaced by guarded writes: each row written must still be the version read (its xmin), else
 * the statement changes nothing and the call reads again, and answers from what it finds (the
 * winner's clear for its own retry, 409 case_closed for anyone else's close) or tries again.
 * A case opened by hand is written by the same statement. A call that keeps losing to other
 * writers runs in a transaction with the locks instead (proposeClearLocked).
 */
export async function proposeClear(ctx: ServiceContext, input: ClearAmlInput): Promise<ClearResult> {
  const orgId = ctx.org.id;
  const me = actorId(ctx.actor);
  const personId = personIdFromDid(issuerDid(), input.subjectDid);
  if (!personId) throw notFound("Person");
  // The canonical form (lower-case id) is what cases, audit entries and the answer carry.
  const subjectDid = personDidOf(issuerDid(), personId);
  // The case this call is about: none at first (what the read finds is what the caller saw),
  // then the one a write that lost was for.
  let seenId: string | null = null;
  for (let attempt = 0; attempt < GUARDED_TRIES; attempt++) {
    const now = ctx.now();
    const r = await clearRead(ctx.db, orgId, personId, seenId, now);
    if (!r) throw notFound("Person");
    const current = r.open;
    if (!current || (seenId && current.id !== seenId)) {
      // The case the caller saw is gone, or the subject has no open case: see closedMeanwhile.
      const settled = seenId ? r.seen : r.recentlyClosed;
      if (settled?.closedAt) {
        if (settled.status === "cleared" && settled.closer === me) return resultOf(settled.id, settled.status, subjectDid);
        throw caseClosed();
      }
    }
    if (current && r.fourEyes && current.status === "pending_approval") return resultOf(current.id, "pending_approval", subjectDid);
    seenId = current?.id ?? null;
    try {
      return await writeClear(ctx, r, current, { personId, subjectDid, reason: input.reason, me, now });
    } catch (err) {
      if (!lostToConcurrentWrite(err)) throw err;
      // A row changed since it was read: read again.
    }
  }
  return proposeClearLocked(ctx, input, personId, subjectDid, seenId);
}

/** Guarded attempts before a clear takes the locks (a case or person that other writers keep changing). */
const GUARDED_TRIES = 4;

const resultOf = (caseId: string, status: string, subjectDid: string): ClearResult => ({
  cleared: status === "cleared",
  pendingApproval: status === "pending_approval",
  caseId,
  subjectDid,
});

type CaseRef = { id: string; status: string; closedAt: string | null; closer: string | null };
type ClearRead = {
  pepFlag: boolean;
  sanctionsFlag: boolean;
  riskScore: number;
  personVersion: string;
  hasKey: boolean;
  keySealed: string | null;
  fourEyes: boolean;
  open: { id: string; status: string; assigneeEmail: string | null; version: string } | null;
  seen: CaseRef | null;
  recentlyClosed: CaseRef | null;
  sla: AmlSlaSettings | null;
  bindings: LiftableBinding[];
};

/**
 * Everything a clear decides on, in one statement: the person's flags and row version, their
 * data key, the organization's four-eyes policy, the open case, the case a lost write was for
 * (`seenId`), the subject's latest case closed within CLEAR_SETTLED_WINDOW_MS, the SLA hours (for
 * a case opened by hand) and the bindings a clear would lift. FOR SHARE on the person: a transition holding the person's lock (they all
 * take it first, case-records.ts lockPerson) is waited for, so the read comes after it.
 */
async function clearRead(db: Db, orgId: string, personId: string, seenId: string | null, now: Date): Promise<ClearRead | null> {
  const since = utcTimestamp(new Date(now.getTime() - CLEAR_SETTLED_WINDOW_MS));
  const caseRef = (c: string) =>
    Prisma.raw(
      `json_build_object('id', ${c}.id, 'status', ${c}.status, 'closedAt', ${c}."closedAt", 'closer', coalesce(${c}."confirmedBy", ${c}."approvedBy", ${c}."proposedBy"))`,
    );
  const rows = await db.$queryRaw<ClearRead[]>`
    SELECT p."pepFlag", p."sanctionsFlag", p."riskScore", p.xmin::text AS "personVersion",
           k."personId" IS NOT NULL AS "hasKey", k."keySealed",
           (SELECT o."requireSecondApprovalToClearAml" FROM organizations o WHERE o.id = ${orgId}::uuid) AS "fourEyes",
           (SELECT json_build_object('id', c.id, 'status', c.status, 'assigneeEmail', c."assigneeEmail", 'version', c.xmin::text)
              FROM aml_cases c WHERE c."orgId" = ${orgId}::uuid AND c."personId" = p.id AND c.status::text = ANY(${[...OPEN_STATUSES]}::text[])
              ORDER BY c."createdAt" LIMIT 1) AS open,
           (SELECT ${caseRef("c")} FROM aml_cases c WHERE c.id = ${seenId}::uuid AND c."orgId" = ${orgId}::uuid) AS seen,
           (SELECT ${caseRef("c")} FROM aml_cases c WHERE c."orgId" = ${orgId}::uuid AND c."personId" = p.id AND c."closedAt" >= ${since}
              ORDER BY c."closedAt" DESC, c.id DESC LIMIT 1) AS "recentlyClosed",
           (SELECT json_build_object('critical', s."criticalHours", 'high', s."highHours", 'medium', s."mediumHours", 'low', s."lowHours")
              FROM aml_sla_settings s WHERE s."orgId" = ${orgId}::uuid) AS sla,
           ${liftableBindingsSql(orgId, personId)} AS bindings
    FROM people p LEFT JOIN person_keys k ON k."personId" = p.id
    WHERE p.id = ${personId}::uuid AND p."orgId" = ${orgId}::uuid
    FOR SHARE OF p`;
  return rows[0] ?? null;
}

/**
 * The transition as one grouped statement: to pending_approval (four-eyes) or cleared with the
 * flags lifted and the credentials following. Texts are sealed in the process under the key read
 * (a person without one gets a new key, written by the same statement).
 */
async function writeClear(
  ctx: ServiceContext,
  r: ClearRead,
  current: ClearRead["open"],
  c: { personId: string; subjectDid: string; reason: string; me: string; now: Date },
): Promise<ClearResult> {
  const orgId = ctx.org.id;
  const { personId, subjectDid, reason, me, now } = c;
  const t = utcTimestamp(now);
  const fresh = r.hasKey ? null : randomBytes(32);
  const key = fresh ?? (r.keySealed ? openKey(r.keySealed) : null);
  // As caseTexts (case-text.ts) seals the case's texts, and the audit chain an entry's free text.
  const seal = sealerFor(personId, key);
  const auditText = (text: string) => (isFreeText(text) ? seal(text) : text);
  // A new key is written after the person and the case: a transition holding their locks may write it too.
  const keyWrite: GroupedWrite[] = fresh ? [{ sql: personKeyInsertSql({ id: personId, orgId }, fresh), rows: 1, beforeHead: true }] : [];
  const writes: GroupedWrite[] = [];
  const caseId = current?.id ?? randomUUID();
  const caseGuard = current
    ? Prisma.sql`id = ${current.id}::uuid AND "orgId" = ${orgId}::uuid AND status = ${current.status}::"AmlCaseStatus" AND xmin = ${current.version}::xid`
    : null;
  // No open case (and none closed lately): one is opened by hand and decided in the same statement,
  // its priority from the flags the person carries, its deadline from the SLA. The person's row,
  // written with the version read, keeps a second case from being opened beside it meanwhile.
  const priority = priorityFromFlags({ sanctions: r.sanctionsFlag, pep: r.pepFlag });
  const byHand = (status: "cleared" | "pending_approval"): GroupedWrite => ({
    sql: Prisma.sql`INSERT INTO aml_cases (id, "orgId", "subjectDid", "personId", status, priority, reason, "openedBy", "proposedBy", "proposedAt",
                      "proposeReason", "closedAt", "dueAt", "createdAt", "updatedAt")
                    VALUES (${caseId}::uuid, ${orgId}::uuid, ${subjectDid}, ${personId}::uuid, ${status}::"AmlCaseStatus", ${priority}::"Severity",
                      ${seal(`${OPENED_BY_HAND}${reason}`)}, ${me}, ${me}, ${t}, ${seal(reason)}, ${status === "cleared" ? t : null},
                      ${utcTimestamp(dueAtFor(now, priority, r.sla ?? DEFAULT_SLA_HOURS))}, ${t}, ${t})`,
    rows: 1,
    beforeHead: true,
  });
  const opened = current ? [] : [{ kind: "opened" as const, actor: me, data: { priority, source: "clear" } }];
  const openedEntry = current
    ? []
    : [
        {
          actor: ctx.actor,
          input: { action: "aml.case_opened", subjectType: "person", subject: subjectDid, data: { caseId, priority, source: "clear" } },
        },
      ];

  if (r.fourEyes) {
    // The assignee at proposal time counts as a proposer too: a key proposing for them does not
    // make them a second pair of eyes.
    const proposedAssignee = current?.assigneeEmail ? `member:${current.assigneeEmail}` : null;
    const events = [...opened, { kind: "proposed" as const, actor: me, data: { reason: seal(reason), proposedAssignee } }];
    writes.push(
      caseGuard
        ? {
            sql: Prisma.sql`UPDATE aml_cases SET status = 'pending_approval', "proposedBy" = ${me}, "proposedAt" = ${t}, "proposeReason" = ${seal(reason)},
                              "proposedAssignee" = ${proposedAssignee}, "updatedAt" = ${t} WHERE ${caseGuard}`,
            rows: 1,
            beforeHead: true,
          }
        : personUnchanged(orgId, personId, r.personVersion, t),
      ...(caseGuard ? [] : [byHand("pending_approval")]),
      ...keyWrite,
      { sql: caseEventsSql(orgId, caseId, events, now), rows: events.length },
    );
    const proposal = {
      actor: ctx.actor,
      input: { action: "aml.clear_proposed", subjectType: "person", subject: subjectDid, data: { caseId, reason: auditText(reason) } },
    };
    const [first, ...rest] = [...openedEntry, proposal];
    await appendAuditGrouped(ctx.db, orgId, { ...first!, writes, also: rest });
    return resultOf(caseId, "pending_approval", subjectDid);
  }

  const lift = liftWrites({ orgId, personDid: subjectDid, actor: me, at: now, bindings: r.bindings });
  writes.push(
    // The person first, then the case, then the bindings: the lock order of every transition.
    {
      sql: Prisma.sql`UPDATE people SET "pepFlag" = false, "sanctionsFlag" = false, "riskScore" = 0, "updatedAt" = ${t}
                      WHERE id = ${personId}::uuid AND "orgId" = ${orgId}::uuid AND xmin = ${r.personVersion}::xid`,
      rows: 1,
      beforeHead: true,
    },
    caseGuard
      ? {
          sql: Prisma.sql`UPDATE aml_cases SET status = 'cleared', "proposedBy" = ${me}, "proposedAt" = ${t}, "proposeReason" = ${seal(reason)},
                            "closedAt" = ${t}, "updatedAt" = ${t} WHERE ${caseGuard}`,
          rows: 1,
          beforeHead: true,
        }
      : byHand("cleared"),
    ...keyWrite,
    ...lift.writes,
  );
  const events = [
    ...opened,
    { kind: "cleared" as const, actor: me, data: { reason: seal(reason), fourEyes: false } },
    ...(lift.timeline ? [lift.timeline] : []),
  ];
  writes.push({ sql: caseEventsSql(orgId, caseId, events, now), rows: events.length });
  const cleared = {
    actor: ctx.actor,
    input: {
      action: "aml.cleared",
      subjectType: "person",
      subject: subjectDid,
      data: { caseId, reason: auditText(reason), clearedBy: me, fourEyes: false, flagsBefore: flagsOf(r) },
    },
  };
  // The case's opening, then the bindings' entries, then the clear's, as the transaction wrote them.
  const [first, ...rest] = [...openedEntry, ...lift.entries, cleared];
  await appendAuditGrouped(ctx.db, orgId, { ...first!, writes, also: rest });
  return resultOf(caseId, "cleared", subjectDid);
}

/** Writes the person's row only if it is still the version read: the guard of a case opened by hand without a clear's flag change. */
const personUnchanged = (orgId: string, personId: string, version: string, t: Prisma.Sql): GroupedWrite => ({
  sql: Prisma.sql`UPDATE people SET "updatedAt" = ${t} WHERE id = ${personId}::uuid AND "orgId" = ${orgId}::uuid AND xmin = ${version}::xid`,
  rows: 1,
  beforeHead: true,
});

/**
 * The clear in one transaction that takes the locks: the person, their bindings, then the case
 * (docs/decisions.md, "AML cases and risk"): the path of a clear whose guarded writes kept losing.
 */
async function proposeClearLocked(
  ctx: ServiceContext,
  input: ClearAmlInput,
  personId: string,
  subjectDid: string,
  seenId: string | null,
): Promise<ClearResult> {
  const orgId = ctx.org.id;
  const me = actorId(ctx.actor);
  return ctx.db.$transaction(async (tx) => {
    const person = await lockPerson(tx, orgId, personId);
    if (!person) throw notFound("Person");
    await lockPersonBindings(tx, orgId, personId);
    const { requireSecondApprovalToClearAml: fourEyes } = await tx.organization.findUniqueOrThrow({
      where: { id: orgId },
      select: { requireSecondApprovalToClearAml: true },
    });
    let current = await openCaseOf(tx, orgId, personId);
    if (!current || (seenId && current.id !== seenId)) {
      const settled = await closedMeanwhile(tx, orgId, personId, seenId, ctx.now(), me);
      if (settled) return result(settled, subjectDid);
    }
    // The reason is stored sealed under the person's key (case-text.ts); the audit entry seals its own copy.
    const { seal } = await caseTexts(tx, { orgId, personId });
    current ??= await openByHand(tx, ctx, personId, { subjectDid, reason: input.reason }, person, seal);
    const now = ctx.now();
    if (fourEyes) {
      // A proposal already waiting stays as it is: the approver must be another identity.
      if (current.status === "pending_approval") return result(current, subjectDid);
      // The assignee at proposal time counts as a proposer too: a key proposing for them does not
      // make them a second pair of eyes.
      const proposedAssignee = current.assigneeEmail ? `member:${current.assigneeEmail}` : null;
      const pending = await tx.amlCase.update({
        where: { id: current.id },
        data: { status: "pending_approval", proposedBy: me, proposedAt: now, proposeReason: seal(input.reason), proposedAssignee },
      });
      await caseEvent(tx, {
        orgId,
        caseId: current.id,
        kind: "proposed",
        actor: me,
        data: { reason: seal(input.reason), proposedAssignee },
      });
      await appendAudit(
        tx,
        { orgId, actor: ctx.actor },
        {
          action: "aml.clear_proposed",
          subjectType: "person",
          subject: subjectDid,
          data: { caseId: current.id, reason: input.reason },
        },
      );
      return result(pending, subjectDid);
    }
    const cleared = await tx.amlCase.update({
      where: { id: current.id },
      data: { status: "cleared", proposedBy: me, proposedAt: now, proposeReason: seal(input.reason), closedAt: now },
    });
    await liftFlags(tx, orgId, personId);
    await caseEvent(tx, { orgId, caseId: current.id, kind: "cleared", actor: me, data: { reason: seal(input.reason), fourEyes: false } });
    await credentialsFollowCase(tx, { orgId, caseId: current.id, personId, change: "lift", reason: input.reason, actor: ctx.actor });
    await appendAudit(
      tx,
      { orgId, actor: ctx.actor },
      {
        action: "aml.cleared",
        subjectType: "person",
        subject: subjectDid,
        data: { caseId: current.id, reason: input.reason, clearedBy: me, fourEyes: false, flagsBefore: flagsOf(person) },
      },
    );
    return result(cleared, subjectDid);
  }, TX);
}

const flagsOf = (p: { pepFlag: boolean; sanctionsFlag: boolean; riskScore: number }) => ({
  pepFlag: p.pepFlag,
  sanctionsFlag: p.sanctionsFlag,
  riskScore: p.riskScore,
});

/**
 * The case the caller saw is gone, or the subject has no open case now. If the case the caller
 * saw was closed, or (when it saw none) the subject's latest case was closed within
 * CLEAR_SETTLED_WINDOW_MS, the call raced that close: the same identity's own clear is answered
 * as done (a retried request), anything else is 409. Otherwise null: open a case by hand.
 */
async function closedMeanwhile(tx: Tx, orgId: string, personId: string, seenId: string | null, now: Date, me: string) {
  const closed = seenId
    ? await tx.amlCase.findFirst({ where: { id: seenId, orgId } })
    : await tx.amlCase.findFirst({
        where: { orgId, personId, closedAt: { gte: new Date(now.getTime() - CLEAR_SETTLED_WINDOW_MS) } },
        orderBy: [{ closedAt: "desc" }, { id: "desc" }],
      });
  if (!closed?.closedAt) return null;
  if (closed.status === "cleared" && closerOf(closed) === me) return closed;
  throw caseClosed();
}

/** How the reason of a case opened by hand begins; the clearing reason follows. */
const OPENED_BY_HAND = "Opened by hand to clear: ";

/** (none) → open: a case opened by hand, its priority from the flags the person carries now. */
async function openByHand(
  tx: Tx,
  ctx: ServiceContext,
  personId: string,
  input: ClearAmlInput,
  p: { pepFlag: boolean; sanctionsFlag: boolean },
  seal: (text: string) => string,
) {
  const priority = priorityFromFlags({ sanctions: p.sanctionsFlag, pep: p.pepFlag });
  const now = ctx.now();
  await touchPerson(tx, ctx.org.id, personId);
  const opened = await tx.amlCase.create({
    data: {
      orgId: ctx.org.id,
      subjectDid: input.subjectDid,
      personId,
      priority,
      // The officer's words make this reason free text: sealed like the clearing reason itself.
      reason: seal(`${OPENED_BY_HAND}${input.reason}`),
      openedBy: actorId(ctx.actor),
      createdAt: now,
      dueAt: dueAtFor(now, priority, await slaHours(tx, ctx.org.id)),
    },
  });
  await caseEvent(tx, {
    orgId: ctx.org.id,
    caseId: opened.id,
    kind: "opened",
    actor: actorId(ctx.actor),
    data: { priority, source: "clear" },
  });
  await appendAudit(
    tx,
    { orgId: ctx.org.id, actor: ctx.actor },
    {
      action: "aml.case_opened",
      subjectType: "person",
      subject: input.subjectDid,
      data: { caseId: opened.id, priority: opened.priority, source: "clear" },
    },
  );
  return opened;
}

/** POST /v1/aml/cases/{caseId}/approve-clear: the second pair of eyes lifts the flags and closes the case. */
export async function approveClear(ctx: ServiceContext, caseId: string, input: ApproveClearInput) {
  const orgId = ctx.org.id;
  const me = actorId(ctx.actor);
  // A shared password does not tell two people apart: the second pair of eyes signs in with their own credentials.
  if (signedInWithOwnCredentials(ctx) === false) {
    throw forbidden("own_credentials_required", "Approving a clear needs a sign-in with your own passkey or password and code.");
  }
  return ctx.db.$transaction(async (tx) => {
    const c = await lockedCase(tx, orgId, caseId);
    if (c.status !== "pending_approval") throw notAwaitingApproval();
    // The same person through another door (a key they minted, a second console address while
    // the organization has no members) is still the proposer.
    if (c.proposedBy && (await samePerson(tx, orgId, c.proposedBy, me))) throw sameApprover();
    // So is the assignee the case had when it was proposed (a backend key proposing for them).
    if (c.proposedAssignee && (await samePerson(tx, orgId, c.proposedAssignee, me))) throw assigneeProposed();
    const now = ctx.now();
    const texts = await caseTexts(tx, c);
    const notes = input.notes == null ? null : texts.seal(input.notes);
    // What the proposer wrote, as the audit entry takes it (it seals its own copy).
    const proposeReason = texts.open(c.proposeReason);
    const done = await tx.amlCase.updateMany({
      where: { id: c.id, orgId, status: "pending_approval", proposedBy: { not: me } },
      data: { status: "cleared", approvedBy: me, approvedAt: now, approveNotes: notes, closedAt: now },
    });
    if (done.count !== 1) throw notAwaitingApproval();
    await liftFlags(tx, orgId, c.personId);
    await caseEvent(tx, {
      orgId,
      caseId: c.id,
      kind: "approved",
      actor: me,
      data: { proposedBy: c.proposedBy, notes },
    });
    await credentialsFollowCase(tx, {
      orgId,
      caseId: c.id,
      personId: c.personId,
      change: "lift",
      reason: proposeReason ?? "",
      actor: ctx.actor,
    });
    await appendAudit(
      tx,
      { orgId, actor: ctx.actor },
      {
        action: "aml.cleared",
        subjectType: "person",
        subject: c.subjectDid,
        data: {
          caseId: c.id,
          reason: proposeReason,
          proposedBy: c.proposedBy,
          approvedBy: me,
          notes: input.notes ?? null,
          fourEyes: true,
        },
      },
    );
    const [view] = await withHits(tx, orgId, [await tx.amlCase.findUniqueOrThrow({ where: { id: c.id } })]);
    return view!;
  }, TX);
}

/** POST /v1/aml/cases/{caseId}/confirm: the match stands; the case closes with the flags still up. */
export async function confirmCase(ctx: ServiceContext, caseId: string, input: ConfirmAmlInput) {
  const orgId = ctx.org.id;
  const me = actorId(ctx.actor);
  return ctx.db.$transaction(async (tx) => {
    const c = await lockedCase(tx, orgId, caseId);
    if (c.status !== "open" && c.status !== "pending_approval") throw caseClosed();
    const now = ctx.now();
    const { seal } = await caseTexts(tx, c);
    const done = await tx.amlCase.updateMany({
      where: { id: c.id, orgId, status: { in: [...OPEN_STATUSES] } },
      data: { status: "confirmed", confirmedBy: me, confirmedAt: now, confirmReason: seal(input.reason), closedAt: now },
    });
    if (done.count !== 1) throw caseClosed();
    await caseEvent(tx, {
      orgId,
      caseId: c.id,
      kind: "confirmed",
      actor: me,
      data: { reason: seal(input.reason), previousStatus: c.status },
    });
    // A confirmed sanctions match ends the person's bindings; a PEP match alone calls for due diligence, not revocation.
    const flags = c.personId ? await tx.person.findFirst({ where: { id: c.personId, orgId }, select: { sanctionsFlag: true } }) : null;
    if (flags?.sanctionsFlag) {
      // The binding's reason (kept in clear on the binding and sent in the identity.unbound webhook)
      // names the case, not the officer's words: those stay in the case, sealed under the person's key.
      const reason = `Confirmed sanctions match (AML case ${c.id})`;
      await credentialsFollowCase(tx, { orgId, caseId: c.id, personId: c.personId, change: "revoke", reason, actor: ctx.actor });
    }
    await appendAudit(
      tx,
      { orgId, actor: ctx.actor },
      {
        action: "aml.confirmed",
        subjectType: "person",
        subject: c.subjectDid,
        data: { caseId: c.id, reason: input.reason, previousStatus: c.status },
      },
    );
    const [view] = await withHits(tx, orgId, [await tx.amlCase.findUniqueOrThrow({ where: { id: c.id } })]);
    return view!;
  }, TX);
}

/**
 * GET /v1/aml/cases: open (open and pending_approval), closed (cleared and confirmed) or all
 * cases, optionally of one assignee (or unassigned), or matching a name: the subject's name as
 * screened, a matched entry's name or alias (from the hits' evidence), or the subject DID. Open
 * cases come worst priority first, then oldest first; closed ones most recently closed first.
 */
export async function listCases(ctx: ServiceContext, query: ListCasesQuery & { mine?: boolean }) {
  const orgId = ctx.org.id;
  // "My cases": the calling member's own (the console's filter; an API key has no cases of its own).
  const { mine, ...q } = query;
  if (mine) q.assignee = ctx.actor.type === "member" ? ctx.actor.email : "none";
  if (!q.q) return { cases: await withHits(ctx.db, orgId, await casePage(ctx.db, orgId, q), ctx.now()) };
  const statusWhere =
    q.status === "open"
      ? { status: { in: [...OPEN_STATUSES] } }
      : q.status === "closed"
        ? { status: { in: ["cleared" as const, "confirmed" as const] } }
        : {};
  const assigneeWhere = q.assignee === undefined ? {} : { assigneeEmail: q.assignee === "none" ? null : q.assignee.toLowerCase() };
  const { text, subjectKeys } = searchTerms(q.q);
  const bySubject = subjectKeys.length ? [{ AND: subjectKeys.map((k) => ({ searchText: { contains: k } })) }] : [];
  const hits = await ctx.db.amlCaseHit.findMany({
    where: { orgId, OR: [{ searchText: { contains: text } }, ...bySubject] },
    select: { caseId: true },
    distinct: ["caseId"],
    take: 1000,
  });
  const searchWhere = { OR: [{ id: { in: hits.map((h) => h.caseId) } }, { subjectDid: { contains: q.q, mode: "insensitive" as const } }] };
  const cases = await ctx.db.amlCase.findMany({
    where: { orgId, ...statusWhere, ...assigneeWhere, ...searchWhere },
    orderBy: q.status === "closed" ? [{ closedAt: "desc" }, { id: "asc" }] : [{ priority: "desc" }, { createdAt: "asc" }, { id: "asc" }],
    take: q.limit,
  });
  return { cases: await withHits(ctx.db, orgId, cases, ctx.now()) };
}

/**
 * A page of a tab with no search, read in the tab's order from its index (migration
 * `20261129110000_aml_case_list_indexes`) and stopped at the page: the queue (open and pending) by
 * priority then age, closed cases newest first, all cases in the queue's order. Written by hand so
 * that the statuses reach the planner as constants, which is what lets it use the partial indexes
 * (the ORM sends them as parameters cast to the enum), whatever the statistics say of the table
 * (docs/performance.md, "Statistics that lag").
 */
function casePage(db: Db, orgId: string, q: Pick<ListCasesQuery, "status" | "assignee" | "limit">): Promise<AmlCase[]> {
  const assignee =
    q.assignee === undefined
      ? Prisma.empty
      : q.assignee === "none"
        ? Prisma.sql`AND "assigneeEmail" IS NULL`
        : Prisma.sql`AND "assigneeEmail" = ${q.assignee.toLowerCase()}`;
  if (q.status === "open")
    return db.$queryRaw<AmlCase[]>`
      SELECT * FROM aml_cases WHERE "orgId" = ${orgId}::uuid AND status IN ('open', 'pending_approval') ${assignee}
      ORDER BY priority DESC, "createdAt", id LIMIT ${q.limit}`;
  if (q.status === "closed")
    return db.$queryRaw<AmlCase[]>`
      SELECT * FROM aml_cases WHERE "orgId" = ${orgId}::uuid AND "closedAt" IS NOT NULL AND status IN ('cleared', 'confirmed') ${assignee}
      ORDER BY "closedAt" DESC, id LIMIT ${q.limit}`;
  return db.$queryRaw<AmlCase[]>`
    SELECT * FROM aml_cases WHERE "orgId" = ${orgId}::uuid ${assignee}
    ORDER BY priority DESC, "createdAt", id LIMIT ${q.limit}`;
}
