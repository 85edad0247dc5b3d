import { z } from "zod";

export const PolicyView = z.object({
  requireEmailProofBeforeFreeCreate: z.boolean(),
  requirePhoneProofBeforeFreeCreate: z.boolean(),
  requireKycBeforeFreeCreate: z.boolean(),
  requireSecondApprovalToClearAml: z.boolean(),
});

export const TenantView = z.object({
  organizationId: z.uuid(),
  name: z.string(),
  environment: z.enum(["sandbox", "production"]),
  plan: z.object({ id: z.enum(["builder", "growth", "institutional"]), name: z.string(), limits: z.object({ requestsPerMinute: z.int() }) }),
  kybStatus: z.enum(["not_started", "pending", "in_review", "approved", "rejected"]),
  signingEnabled: z.boolean(),
  ipAllowlist: z.object({ cidrs: z.array(z.string()) }),
  countryPolicy: z.object({ allowedCountries: z.array(z.string()), blockedCountries: z.array(z.string()) }),
  policy: PolicyView,
  dpaAcceptedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});
