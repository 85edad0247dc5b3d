import type { Tx } from "../../db/client";
import { appendAudit } from "../audit";
import { caseEvent } from "./case-events";
import { lockPerson, openCaseOf, touchPerson } from "./case-records";
import { dueAtFor, slaHours } from "./sla";

/** Locks the person first (the AML lock order) before a binding change that opens or notes a case. */
export const lockAmlSubject = (tx: Tx, orgId: string, personId: string) => lockPerson(tx, orgId, personId);

/**
 * A bound account's keys no longer hold the key that signed its binding (an account sale, a lost
 * or rotated key): a case for a compliance officer to review, opened at medium priority, or the
 * change noted on the person's open case. A reinstatement by a new wallet signature is noted on
 * the open case too; it opens none. Call after lockAmlSubject, in the binding change's transaction.
 */
export async function recordKeyChange(
  tx: Tx,
  input: {
    orgId: string;
    personId: string;
    subjectDid: string;
    accountDid: string;
    bindingId: string;
    change: "suspended" | "reinstated";
    actor: string;
  },
) {
  const { orgId, personId, actor } = input;
  let open = await openCaseOf(tx, orgId, personId);
  if (!open && input.change === "suspended") {
    const now = new Date();
    await touchPerson(tx, orgId, personId);
    open = await tx.amlCase.create({
      data: {
        orgId,
        subjectDid: input.subjectDid,
        personId,
        priority: "medium",
        reason: `The keys of ${input.accountDid} no longer hold the key that signed its binding`,
        openedBy: actor,
        createdAt: now,
        dueAt: dueAtFor(now, "medium", await slaHours(tx, orgId)),
      },
    });
    await caseEvent(tx, { orgId, caseId: open.id, kind: "opened", actor, data: { priority: "medium", source: "key_change" } });
    await appendAudit(
      tx,
      { orgId, actor },
      {
        action: "aml.case_opened",
        subjectType: "person",
        subject: input.subjectDid,
        data: { caseId: open.id, priority: "medium", source: "key_change" },
      },
    );
  }
  if (!open) return null;
  const status = input.change === "suspended" ? "suspended" : "active";
  await caseEvent(tx, {
    orgId,
    caseId: open.id,
    kind: "credentials_changed",
    actor,
    data: { change: input.change, reason: "key_changed", bindings: [{ bindingId: input.bindingId, accountDid: input.accountDid, status }] },
  });
  return open.id;
}
