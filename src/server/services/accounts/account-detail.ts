import { personLabel } from "@/lib/person-label";
import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { findAccount, personDidOf } from "../../platform/account-ref";
import { auditTrail, mayReadAmlDetail } from "../audit";
import { publishedStatusOf } from "../credential-status";
import { accountView } from "./accounts";

/**
 * One account of the caller's organization as the console's account page shows it: the read API's
 * view (contacts masked the same way), every binding (revoked ones too) with its AccountBinding
 * credential, the people it is bound to, and the audit entries about it. DID or bare chain name;
 * another organization's account is 404.
 */
export async function getAccountDetail(ctx: ServiceContext, ref: string) {
  const account = await findAccount(ctx.db, ctx.org.id, ref);
  const issuer = issuerDid();
  const [bindings, audit] = await Promise.all([
    ctx.db.accountBinding.findMany({
      where: { orgId: ctx.org.id, accountId: account.id },
      orderBy: { createdAt: "desc" },
      include: { person: { select: { id: true, kycStatus: true, country: true } } },
    }),
    auditTrail(ctx.db, ctx.org.id, { subjects: [account.did] }, 100, ctx.actor),
  ]);
  const published = await publishedStatusOf(
    ctx.db,
    bindings.map((b) => b.id),
  );
  // Why a binding is held (a sanctions flag) is AML work: hidden below compliance officer.
  const amlDetail = mayReadAmlDetail(ctx.actor);
  const view = accountView(
    account,
    bindings.map(({ person: _, ...b }) => b),
  );
  return {
    ...view,
    bindings: amlDetail ? view.bindings : view.bindings.map((b) => ({ ...b, suspendedFor: [] })),
    lifecycleBeforeSuspend: account.lifecycleBeforeSuspend,
    updatedAt: account.updatedAt.toISOString(),
    allBindings: bindings.map((b) => {
      const personDid = personDidOf(issuer, b.person.id);
      return {
        bindingId: b.id,
        personId: b.person.id,
        personDid,
        personLabel: personLabel({ personDid, kycStatus: b.person.kycStatus, country: b.person.country }),
        bindingVcHash: b.bindingVcHash,
        createdAt: b.createdAt.toISOString(),
        revokedAt: b.revokedAt?.toISOString() ?? null,
        status: b.status,
        suspendedFor: amlDetail ? b.suspendedFor : [],
        revocationReason: amlDetail ? b.revocationReason : null,
        revokedBy: amlDetail ? b.revokedBy : null,
        /** What the status lists publish for its credential; empty for a credential issued before status lists. */
        published: published.get(b.id) ?? [],
        credential: b.credential as Record<string, unknown>,
      };
    }),
    audit,
  };
}
