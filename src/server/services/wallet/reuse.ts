import type { WalletPresentation } from "@/generated/prisma/client.ts";
import { issuerDid } from "../../crypto/issuer-keys";
import type { Tx } from "../../db/client";
import { personDidOf } from "../../platform/account-ref";
import { countReuse } from "../../platform/verification-allowance";
import { appendAudit } from "../audit";

const ACTOR = { type: "system", label: "oid4vp" } as const;

/**
 * A verified presentation, in the requesting organization's audit trail; when the credential was
 * offered by another organization, that is a reuse of its verification by the person's consent
 * (their wallet presented it for this request): written into both organizations' trails (which
 * claims, to whom, never their values) and counted as a reuse for the requester, not a KYC.
 * The two chains are appended in a fixed order (by organization id), so two reuses crossing
 * between the same organizations cannot deadlock.
 */
export async function recordReuse(
  tx: Tx,
  row: WalletPresentation,
  source: { orgId: string; personId: string; id: string } | null,
  now: Date,
): Promise<void> {
  const reuse = source !== null && source.orgId !== row.orgId;
  const requester = async () =>
    appendAudit(
      tx,
      { orgId: row.orgId, actor: ACTOR },
      {
        action: "wallet.presentation_verified",
        subjectType: "presentation",
        subject: row.id,
        data: {
          claims: row.claims,
          reuse,
          sourceOrganizationId: reuse ? source.orgId : null,
          consent: reuse ? "wallet_presentation" : null,
        },
      },
    );
  if (!reuse) {
    await requester();
    return;
  }
  const recipient = await tx.organization.findUnique({ where: { id: row.orgId }, select: { name: true } });
  const issuing = async () =>
    appendAudit(
      tx,
      { orgId: source.orgId, actor: ACTOR },
      {
        action: "wallet.reuse_consented",
        subjectType: "person",
        subject: personDidOf(issuerDid(), source.personId),
        data: {
          presentationId: row.id,
          offerId: source.id,
          recipientOrganizationId: row.orgId,
          recipientName: recipient?.name ?? null,
          claims: row.claims,
        },
      },
    );
  for (const append of row.orgId < source.orgId ? [requester, issuing] : [issuing, requester]) await append();
  await countReuse(tx, row.orgId, now);
}
