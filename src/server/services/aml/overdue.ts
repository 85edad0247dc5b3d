import { publicUrl } from "@/env";
import type { Db } from "../../db/client";
import { logger } from "../../log";
import { messaging } from "../../providers/messaging";
import { appendAudit } from "../audit";
import { caseEvent } from "./case-events";

const ACTOR = "system:aml-overdue";

type Claimed = { id: string; orgId: string; subjectDid: string; priority: string; dueAt: Date; assigneeEmail: string | null };

/**
 * Claims AML cases still open whose deadline has passed and whose overdue email has not gone out,
 * marks them notified, writes the timeline and audit log, then emails the assignee and the
 * organization's active compliance officers. The mark is set in the claiming transaction, so
 * each case is emailed once, however many instances run this (SKIP LOCKED); a failed send is
 * logged (without addresses) and not retried. The email names the case, never the person.
 */
export async function notifyOverdueCases(db: Db, opts: { limit?: number; now?: Date } = {}) {
  const now = opts.now ?? new Date();
  const at = now.toISOString();
  const limit = opts.limit ?? 50;
  const claimed = await db.$transaction(
    async (tx) => {
      const rows = await tx.$queryRaw<Claimed[]>`
        UPDATE aml_cases SET "overdueNotifiedAt" = ${at}::timestamptz AT TIME ZONE 'UTC'
        WHERE id IN (
          SELECT id FROM aml_cases
          WHERE "overdueNotifiedAt" IS NULL AND status IN ('open', 'pending_approval')
            AND "dueAt" <= ${at}::timestamptz AT TIME ZONE 'UTC'
          ORDER BY "dueAt", id
          LIMIT ${limit}
          FOR NO KEY UPDATE SKIP LOCKED)
        RETURNING id::text AS id, "orgId"::text AS "orgId", "subjectDid", priority::text AS priority, "dueAt", "assigneeEmail"`;
      // Audit chain heads are locked in one order (organization id), so two runners never deadlock.
      rows.sort((a, b) => a.orgId.localeCompare(b.orgId) || a.id.localeCompare(b.id));
      for (const c of rows) {
        const data = { dueAt: c.dueAt.toISOString(), priority: c.priority, assigneeEmail: c.assigneeEmail };
        await caseEvent(tx, { orgId: c.orgId, caseId: c.id, kind: "overdue", actor: ACTOR, data });
        await appendAudit(
          tx,
          { orgId: c.orgId, actor: ACTOR },
          { action: "aml.case_overdue", subjectType: "person", subject: c.subjectDid, data: { caseId: c.id, ...data } },
        );
      }
      return rows;
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
  let sent = 0;
  for (const c of claimed) {
    const officers = await db.consoleMember.findMany({
      where: { orgId: c.orgId, active: true, role: "compliance_officer" },
      select: { email: true },
    });
    const to = [...new Set([c.assigneeEmail, ...officers.map((o) => o.email)].filter((e): e is string => !!e))];
    const org = await db.organization.findUnique({ where: { id: c.orgId }, select: { name: true } });
    for (const address of to) {
      try {
        await messaging(db).sendEmail({
          to: address,
          orgId: c.orgId,
          subject: `AML case overdue (${c.priority}) at ${org?.name ?? "your organization"}`,
          text: [
            `The AML case ${c.id} (priority ${c.priority}) passed its deadline of ${c.dueAt.toISOString()} without a decision.`,
            c.assigneeEmail ? `It is assigned to ${c.assigneeEmail}.` : "Nobody is assigned to it yet.",
            `Open it in the console: ${publicUrl("/console/aml")}`,
          ].join("\n"),
        });
        sent++;
      } catch (err) {
        logger().warn({ err: { message: (err as Error).message }, orgId: c.orgId, caseId: c.id }, "AML overdue email not sent");
      }
    }
  }
  return { cases: claimed.length, emails: sent };
}
