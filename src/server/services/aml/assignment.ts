import type { AmlCase } from "@/generated/prisma/client.ts";
import { atLeast } from "@/lib/roles";
import { actorId, type ServiceContext } from "../../context";
import type { Tx } from "../../db/client";
import { AppError, conflict } from "../../errors";
import { normalizeEmail } from "../../platform/contact-address";
import { appendAudit } from "../audit";
import { caseEvent } from "./case-events";
import { caseClosed, lockedCase, OPEN_STATUSES, withHits } from "./case-records";
import { caseTexts, sealEventData } from "./case-text";
import type { AssignCaseInput, NextCaseInput, ReassignCaseInput, UnassignCaseInput } from "./casework.schema";

// Who works an AML case. A case is assigned to a console member holding compliance_officer or
// above (by email, the identity the console signs them in with); every change locks the subject's
// person, then the case (case-records.ts lockPerson), and writes the timeline and the audit log in
// the same transaction.

const TX = { timeout: 20_000, maxWait: 10_000 } as const;

const assigneeNotFound = () =>
  new AppError("NOT_FOUND", "No active console member of this organization has that email.", { reason: "assignee_not_found" });
const notAssigned = () => conflict("not_assigned", "This AML case is not assigned to anyone.");
const alreadyAssigned = () => conflict("already_assigned", "This AML case is already assigned; reassign it with a reason.");

/** The member a case may go to: active, compliance_officer or above. Returns their stored email. */
async function assignee(db: Tx | ServiceContext["db"], orgId: string, raw: string): Promise<string> {
  const email = normalizeEmail(raw);
  const m = await db.consoleMember.findUnique({
    where: { orgId_email: { orgId, email } },
    select: { email: true, role: true, active: true },
  });
  if (!m?.active) throw assigneeNotFound();
  if (!atLeast(m.role, "compliance_officer")) {
    throw conflict("assignee_role", "An AML case can be assigned only to a compliance officer, an admin or an owner.");
  }
  return m.email;
}

const isOpen = (c: AmlCase) => (OPEN_STATUSES as readonly string[]).includes(c.status);

async function view(tx: Tx, ctx: ServiceContext, id: string) {
  const [v] = await withHits(tx, ctx.org.id, [await tx.amlCase.findUniqueOrThrow({ where: { id } })], ctx.now());
  return v!;
}

async function audit(tx: Tx, ctx: ServiceContext, c: AmlCase, action: string, data: Record<string, string | null>) {
  await appendAudit(
    tx,
    { orgId: ctx.org.id, actor: ctx.actor },
    { action, subjectType: "person", subject: c.subjectDid, data: { caseId: c.id, ...data } },
  );
}

/**
 * One change of who works an open case, in one transaction: lock the case, refuse a closed one,
 * let `change` decide (null: nothing to do), then write the row, the timeline event and the audit
 * entry, and answer the case as it now stands.
 */
async function changeAssignment(
  ctx: ServiceContext,
  caseId: string,
  change: (
    tx: Tx,
    c: AmlCase,
  ) => Promise<{
    assigneeEmail: string | null;
    kind: "assigned" | "reassigned" | "unassigned";
    action: string;
    data: Record<string, string | null>;
  } | null>,
) {
  const orgId = ctx.org.id;
  return ctx.db.$transaction(async (tx) => {
    const c = await lockedCase(tx, orgId, caseId);
    if (!isOpen(c)) throw caseClosed();
    const next = await change(tx, c);
    if (next) {
      await tx.amlCase.update({
        where: { id: c.id },
        data: { assigneeEmail: next.assigneeEmail, assignedAt: next.assigneeEmail ? ctx.now() : null },
      });
      // A reassignment's or unassignment's reason is the officer's own text: sealed in the timeline
      // (case-text.ts); the audit entry seals its own copy.
      const { seal } = await caseTexts(tx, c);
      await caseEvent(tx, { orgId, caseId: c.id, kind: next.kind, actor: actorId(ctx.actor), data: sealEventData(next.data, seal) });
      await audit(tx, ctx, c, next.action, next.data);
    }
    return view(tx, ctx, c.id);
  }, TX);
}

/** POST /v1/aml/cases/{caseId}/assign: an unassigned open case to a member. */
export function assignCase(ctx: ServiceContext, caseId: string, input: AssignCaseInput) {
  return changeAssignment(ctx, caseId, async (tx, c) => {
    const to = await assignee(tx, ctx.org.id, input.assigneeEmail);
    if (c.assigneeEmail === to) return null;
    if (c.assigneeEmail) throw alreadyAssigned();
    return { assigneeEmail: to, kind: "assigned", action: "aml.case_assigned", data: { assigneeEmail: to } };
  });
}

/** POST /v1/aml/cases/{caseId}/reassign: from the current assignee to another member, with a reason. */
export function reassignCase(ctx: ServiceContext, caseId: string, input: ReassignCaseInput) {
  return changeAssignment(ctx, caseId, async (tx, c) => {
    if (!c.assigneeEmail) throw notAssigned();
    const to = await assignee(tx, ctx.org.id, input.assigneeEmail);
    if (c.assigneeEmail === to) return null;
    const data = { from: c.assigneeEmail, assigneeEmail: to, reason: input.reason };
    return { assigneeEmail: to, kind: "reassigned", action: "aml.case_reassigned", data };
  });
}

/** POST /v1/aml/cases/{caseId}/unassign: back to the unassigned queue. */
export function unassignCase(ctx: ServiceContext, caseId: string, input: UnassignCaseInput) {
  return changeAssignment(ctx, caseId, async (_tx, c) => {
    if (!c.assigneeEmail) throw notAssigned();
    const data = { from: c.assigneeEmail, reason: input.reason ?? null };
    return { assigneeEmail: null, kind: "unassigned", action: "aml.case_unassigned", data };
  });
}

/**
 * POST /v1/aml/cases/next: hands out the worst-priority, then oldest, unassigned case in status
 * open, to the caller (a console member) or to the member an API key names. One statement picks
 * and assigns it; SKIP LOCKED makes concurrent callers pass over a case another call is taking,
 * so N calls at once get N different cases. `case: null` when the queue has none left.
 */
export async function takeNextCase(ctx: ServiceContext, input: NextCaseInput) {
  const orgId = ctx.org.id;
  const me = actorId(ctx.actor);
  const wanted = input.assigneeEmail ?? (ctx.actor.type === "member" ? ctx.actor.email : null);
  if (!wanted) {
    throw new AppError("VALIDATION_ERROR", "Name the member to hand the case to.", {
      issues: [{ path: "body.assigneeEmail", message: "is required when an API key takes the next case" }],
    });
  }
  const to = await assignee(ctx.db, orgId, wanted);
  return ctx.db.$transaction(async (tx) => {
    const now = ctx.now();
    const rows = await tx.$queryRaw<{ id: string; subjectDid: string }[]>`
      UPDATE aml_cases SET "assigneeEmail" = ${to},
        "assignedAt" = ${now.toISOString()}::timestamptz AT TIME ZONE 'UTC', "updatedAt" = ${now.toISOString()}::timestamptz AT TIME ZONE 'UTC'
      WHERE id = (
        SELECT id FROM aml_cases
        WHERE "orgId" = ${orgId}::uuid AND status = 'open' AND "assigneeEmail" IS NULL
        ORDER BY priority DESC, "createdAt" ASC, id ASC
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
      AND "assigneeEmail" IS NULL
      RETURNING id::text AS id, "subjectDid"`;
    const taken = rows[0];
    if (!taken) return { case: null };
    await caseEvent(tx, { orgId, caseId: taken.id, kind: "assigned", actor: me, data: { assigneeEmail: to, via: "next" } });
    await appendAudit(
      tx,
      { orgId, actor: ctx.actor },
      {
        action: "aml.case_assigned",
        subjectType: "person",
        subject: taken.subjectDid,
        data: { caseId: taken.id, assigneeEmail: to, via: "next" },
      },
    );
    return { case: await view(tx, ctx, taken.id) };
  }, TX);
}
