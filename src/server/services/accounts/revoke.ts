import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { conflict, notFound } from "../../errors";
import { personDidOf } from "../../platform/account-ref";
import { isUuid } from "../../platform/ids";
import { lockBindings, revokeLocked } from "../credential-status";

/**
 * POST /v1/bindings/{id}/revoke: ends a binding for good. The binding row, the credential's
 * revocation bit, the account's lifecycle, `identity.unbound` and the audit entry commit in one
 * transaction; the binding row is locked first, so concurrent revokes of one binding revoke once
 * and the others answer 409 `already_revoked`. Another organization's binding is 404.
 */
export async function revokeBinding(ctx: ServiceContext, bindingId: string, input: { reason: string }) {
  if (!isUuid(bindingId)) throw notFound("Binding");
  return ctx.db.$transaction(
    async (tx) => {
      const [b] = await lockBindings(tx, ctx.org.id, { bindingId });
      if (!b) throw notFound("Binding");
      if (b.status === "revoked") throw conflict("already_revoked", "This binding is already revoked.");
      const at = ctx.now();
      await revokeLocked(tx, b, input.reason, ctx.actor, at);
      const account = await tx.account.findUniqueOrThrow({ where: { id: b.accountId }, select: { lifecycle: true } });
      return {
        bindingId: b.id,
        accountDid: b.accountDid,
        personDid: personDidOf(issuerDid(), b.personId),
        bindingVcHash: b.bindingVcHash,
        status: "revoked" as const,
        revokedAt: at.toISOString(),
        reason: input.reason,
        lifecycle: account.lifecycle,
      };
    },
    { timeout: 20_000, maxWait: 10_000 },
  );
}
