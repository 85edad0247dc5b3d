import { type Actor, actorId } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import type { Tx } from "../../db/client";
import { personDidOf } from "../../platform/account-ref";
import { attestationChanged } from "../../platform/attestation-sync";
import { emitEvent } from "../../platform/outbox";
import { appendAudit } from "../audit";
import { setOrganizationStatusBits, setStatusBit } from "./lists";

// The binding's status machine: active ⇄ suspended (one reason or more: `sanctions_flag`,
// `key_changed`), and revoked, which is final. Every change writes the binding row, the status bit
// the published list shows, the webhook and the audit entry in the caller's transaction, so a
// crash can never leave the list saying something the binding does not.
//
// Lock order: the binding rows first (lockBindings), then the account, then the audit chain head
// (appendAudit) last, like every other write.

export type SuspensionReason = "sanctions_flag" | "key_changed";

type Locked = {
  id: string;
  orgId: string;
  accountId: string;
  personId: string;
  bindingVcHash: string;
  status: "active" | "suspended" | "revoked";
  suspendedFor: string[];
  accountDid: string;
};

/** Locks bindings (by id, or every binding of a person) and reads them fresh with their account's DID. */
export async function lockBindings(tx: Tx, orgId: string, by: { bindingId: string } | { personId: string }): Promise<Locked[]> {
  const byId = "bindingId" in by ? by.bindingId : null;
  const byPerson = "personId" in by ? by.personId : null;
  return tx.$queryRaw<Locked[]>`
    SELECT b.id, b."orgId", b."accountId", b."personId", b."bindingVcHash", b.status::text AS status,
           coalesce(b."suspendedFor", '{}') AS "suspendedFor", a.did AS "accountDid"
    FROM account_bindings b JOIN accounts a ON a.id = b."accountId"
    WHERE b."orgId" = ${orgId}::uuid
      AND (${byId}::uuid IS NULL OR b.id = ${byId}::uuid)
      AND (${byPerson}::uuid IS NULL OR b."personId" = ${byPerson}::uuid)
    ORDER BY b.id
    FOR UPDATE OF b`;
}

const personDid = (b: Locked) => personDidOf(issuerDid(), b.personId);
const who = (actor: Actor | string) => (typeof actor === "string" ? actor : actorId(actor));

/** Adds a suspension reason; the first one sets the suspension bit. Returns whether anything changed. */
export async function suspendLocked(tx: Tx, b: Locked, reason: SuspensionReason, actor: Actor | string, at: Date) {
  if (b.status === "revoked" || b.suspendedFor.includes(reason)) return false;
  const suspendedFor = [...b.suspendedFor, reason];
  await tx.accountBinding.update({ where: { id: b.id }, data: { status: "suspended", suspendedFor, statusChangedAt: at } });
  await setStatusBit(tx, b.id, "suspension", true, at);
  await attestationChanged(tx, b.orgId, [b.accountId], at);
  const payload = { accountDid: b.accountDid, personDid: personDid(b), bindingVcHash: b.bindingVcHash, reason };
  await emitEvent(tx, b.orgId, "identity.binding_suspended", payload);
  await appendAudit(
    tx,
    { orgId: b.orgId, actor: who(actor) },
    {
      action: "identity.binding_suspended",
      subjectType: "account",
      subject: b.accountDid,
      data: { bindingId: b.id, personDid: payload.personDid, reason, suspendedFor },
    },
  );
  Object.assign(b, { status: "suspended", suspendedFor });
  return true;
}

/** Removes one suspension reason; when none is left the binding is active again and its bit cleared. */
export async function liftLocked(tx: Tx, b: Locked, reason: SuspensionReason, actor: Actor | string, at: Date) {
  if (b.status === "revoked" || !b.suspendedFor.includes(reason)) return false;
  const suspendedFor = b.suspendedFor.filter((r) => r !== reason);
  const status = suspendedFor.length ? "suspended" : "active";
  await tx.accountBinding.update({ where: { id: b.id }, data: { status, suspendedFor, statusChangedAt: at } });
  if (status === "active") {
    await setStatusBit(tx, b.id, "suspension", false, at);
    await attestationChanged(tx, b.orgId, [b.accountId], at);
    await emitEvent(tx, b.orgId, "identity.binding_reinstated", {
      accountDid: b.accountDid,
      personDid: personDid(b),
      bindingVcHash: b.bindingVcHash,
      reason,
    });
  }
  await appendAudit(
    tx,
    { orgId: b.orgId, actor: who(actor) },
    {
      action: status === "active" ? "identity.binding_reinstated" : "identity.binding_suspension_lifted",
      subjectType: "account",
      subject: b.accountDid,
      data: { bindingId: b.id, personDid: personDid(b), reason, suspendedFor },
    },
  );
  Object.assign(b, { status, suspendedFor });
  return true;
}

/**
 * Ends a binding for good: the row says revoked, the revocation bit is set, the account leaves
 * `bound` for `provisional` (an unlocked account stays unlocked: it has no faucet cosigner to go
 * back to), and `identity.unbound` and the audit entry follow. False when it was already revoked.
 */
export async function revokeLocked(tx: Tx, b: Locked, reason: string, actor: Actor | string, at: Date) {
  if (b.status === "revoked") return false;
  const by = who(actor);
  await tx.accountBinding.update({
    where: { id: b.id },
    data: { status: "revoked", revokedAt: at, revocationReason: reason, revokedBy: by, statusChangedAt: at },
  });
  await setStatusBit(tx, b.id, "revocation", true, at);
  await attestationChanged(tx, b.orgId, [b.accountId], at);
  await tx.account.updateMany({ where: { id: b.accountId, lifecycle: "bound" }, data: { lifecycle: "provisional" } });
  await tx.account.updateMany({
    where: { id: b.accountId, lifecycle: "suspended", lifecycleBeforeSuspend: "bound" },
    data: { lifecycleBeforeSuspend: "provisional" },
  });
  const account = await tx.account.findUniqueOrThrow({ where: { id: b.accountId }, select: { lifecycle: true } });
  const payload = { accountDid: b.accountDid, personDid: personDid(b), bindingVcHash: b.bindingVcHash, reason };
  await emitEvent(tx, b.orgId, "identity.unbound", payload);
  await appendAudit(
    tx,
    { orgId: b.orgId, actor: by },
    {
      action: "identity.unbound",
      subjectType: "account",
      subject: b.accountDid,
      data: { bindingId: b.id, personDid: payload.personDid, bindingVcHash: b.bindingVcHash, reason, lifecycle: account.lifecycle },
    },
  );
  Object.assign(b, { status: "revoked" });
  return true;
}

/**
 * Revokes every binding of an organization that is about to be erased (org/erase.ts), in the
 * erasure's transaction: each credential it issued reads revoked in the status lists, which are
 * shared by every organization and stay published after it is gone, and a suspension bit is
 * cleared the way a lift clears it, since revoked is the final word on the credential. Bindings
 * revoked earlier keep their reason; their suspension bit is cleared too. No webhook or audit
 * entry: the erasure deletes the organization's outbox and audit log in the same transaction.
 * Returns how many bindings were not revoked before.
 */
export async function revokeOrganizationBindings(tx: Tx, orgId: string, reason: string, by: string, at: Date): Promise<number> {
  // Binding rows first, like every other status change (see the lock order above).
  await tx.$queryRaw`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM account_bindings WHERE "orgId" = ${orgId}::uuid ORDER BY id FOR UPDATE) locked`;
  const revoked = await tx.accountBinding.updateMany({
    where: { orgId, status: { not: "revoked" } },
    data: { status: "revoked", revokedAt: at, revocationReason: reason, revokedBy: by, statusChangedAt: at },
  });
  await setOrganizationStatusBits(tx, orgId, "revocation", true, at);
  await setOrganizationStatusBits(tx, orgId, "suspension", false, at);
  return revoked.count;
}

export type PersonStatusChange = { bindingId: string; accountDid: string; status: string };

/**
 * What compliance does to a person's credentials, in the AML transaction that justifies it:
 * a sanctions flag suspends, a confirmed match revokes, a clear lifts the flag's suspension.
 * The person's row is already locked by the caller (AML lock order), the bindings come next.
 */
export async function applyComplianceStatus(
  tx: Tx,
  input: { orgId: string; personId: string; change: "suspend" | "revoke" | "lift"; reason: string; actor: Actor | string; at: Date },
): Promise<PersonStatusChange[]> {
  const bindings = await lockBindings(tx, input.orgId, { personId: input.personId });
  const changed: PersonStatusChange[] = [];
  for (const b of bindings) {
    const did =
      input.change === "suspend"
        ? await suspendLocked(tx, b, "sanctions_flag", input.actor, input.at)
        : input.change === "lift"
          ? await liftLocked(tx, b, "sanctions_flag", input.actor, input.at)
          : await revokeLocked(tx, b, input.reason, input.actor, input.at);
    if (did) changed.push({ bindingId: b.id, accountDid: b.accountDid, status: b.status });
  }
  return changed;
}
