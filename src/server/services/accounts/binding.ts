import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { notFound } from "../../errors";
import { personDidOf } from "../../platform/account-ref";
import { isUuid } from "../../platform/ids";

/**
 * GET /v1/bindings/{id}: one binding of the caller's organization with its credential, so a tenant
 * can read the credential again instead of keeping the bind answer (docs/api/guides/binding.md,
 * "6. When a binding changes"). `suspendedFor` is there only while the binding is suspended.
 * Another organization's binding, or an id that is not a uuid, is 404.
 */
export async function getBinding(ctx: ServiceContext, bindingId: string) {
  if (!isUuid(bindingId)) throw notFound("Binding");
  const b = await ctx.db.accountBinding.findFirst({
    where: { id: bindingId, orgId: ctx.org.id },
    include: { account: { select: { did: true } } },
  });
  if (!b) throw notFound("Binding");
  return {
    bindingId: b.id,
    accountDid: b.account.did,
    personDid: personDidOf(issuerDid(), b.personId),
    bindingVcHash: b.bindingVcHash,
    status: b.status,
    ...(b.status === "suspended" ? { suspendedFor: b.suspendedFor } : {}),
    createdAt: b.createdAt.toISOString(),
    revokedAt: b.revokedAt?.toISOString() ?? null,
    credential: b.credential as Record<string, unknown>,
  };
}
