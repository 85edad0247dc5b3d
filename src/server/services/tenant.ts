import type { Organization } from "@/generated/prisma/client.ts";
import { PLANS } from "../plans";
import type { ServiceContext } from "../context";

export const policyView = (org: Organization) => ({
  requireEmailProofBeforeFreeCreate: org.requireEmailProofBeforeFreeCreate,
  requirePhoneProofBeforeFreeCreate: org.requirePhoneProofBeforeFreeCreate,
  requireKycBeforeFreeCreate: org.requireKycBeforeFreeCreate,
  requireSecondApprovalToClearAml: org.requireSecondApprovalToClearAml,
});

/** The organization's security posture, as a tenant backend may read it with the `read` scope. */
export const tenantView = (org: Organization) => ({
  organizationId: org.id,
  name: org.name,
  environment: org.environment,
  plan: { id: org.plan, name: PLANS[org.plan].name, limits: PLANS[org.plan].limits },
  kybStatus: org.kybStatus,
  signingEnabled: org.signingEnabled,
  ipAllowlist: { cidrs: org.ipAllowlist },
  countryPolicy: { allowedCountries: org.allowedCountries, blockedCountries: org.blockedCountries },
  policy: policyView(org),
  dpaAcceptedAt: org.dpaAcceptedAt?.toISOString() ?? null,
  createdAt: org.createdAt.toISOString(),
});

export async function getTenant(ctx: ServiceContext) {
  return tenantView(ctx.org);
}
