import { type Actor, actorId } from "../../context";
import type { Tx } from "../../db/client";
import { applyComplianceStatus, lockBindings } from "../credential-status";
import { caseEvent } from "./case-events";

/**
 * What a case's outcome does to the person's credentials, in the case's own transaction (after
 * the person and case locks, before the audit entry): a sanctions flag suspends every binding of
 * the person, a confirmed sanctions match revokes them, a clear lifts the flag's suspension. The
 * case's timeline records which bindings changed; each binding's own audit entry and webhook are
 * written by the status change itself.
 */
export async function credentialsFollowCase(
  tx: Tx,
  input: {
    orgId: string;
    caseId: string;
    personId: string | null;
    change: "suspend" | "revoke" | "lift";
    reason: string;
    actor: Actor | string;
  },
) {
  if (!input.personId) return [];
  const changed = await applyComplianceStatus(tx, { ...input, personId: input.personId, at: new Date() });
  if (changed.length) {
    const kind = { suspend: "suspended", revoke: "revoked", lift: "reinstated" }[input.change];
    await caseEvent(tx, {
      orgId: input.orgId,
      caseId: input.caseId,
      kind: "credentials_changed",
      actor: typeof input.actor === "string" ? input.actor : actorId(input.actor),
      data: { change: kind, bindings: changed.map((c) => ({ bindingId: c.bindingId, accountDid: c.accountDid, status: c.status })) },
    });
  }
  return changed;
}

/**
 * Takes the person's binding locks up front, for transitions that may append an audit entry
 * (which locks the chain head) before they change a binding: locks are then always taken in the
 * order person, case, bindings, audit head, as in every other write.
 */
export async function lockPersonBindings(tx: Tx, orgId: string, personId: string) {
  await lockBindings(tx, orgId, { personId });
}
