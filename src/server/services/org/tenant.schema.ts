import { z } from "zod";
import { canonicalCidr } from "../../platform/cidr.schema";

export const PolicyView = z.object({
  requireEmailProofBeforeFreeCreate: z.boolean(),
  requirePhoneProofBeforeFreeCreate: z.boolean(),
  requireKycBeforeFreeCreate: z.boolean(),
  requireSecondApprovalToClearAml: z.boolean(),
  walletCredentialCountry: z
    .boolean()
    .describe(
      "Wallet credentials offered by this organization carry the verified country (`country`) as a disclosable claim; off: only `nationality_tier`.",
    ),
});

export const TenantView = z.object({
  organizationId: z.uuid(),
  name: z.string(),
  environment: z.enum(["sandbox", "production"]),
  plan: z.object({
    id: z.enum(["builder", "growth", "institutional"]),
    name: z.string(),
    limits: z.object({ requestsPerMinute: z.int() }),
  }),
  kybStatus: z.enum(["not_started", "pending", "in_review", "approved", "rejected"]),
  signingEnabled: z.boolean(),
  ipAllowlist: z.object({ cidrs: z.array(z.string()) }),
  countryPolicy: z.object({ allowedCountries: z.array(z.string()), blockedCountries: z.array(z.string()) }),
  policy: PolicyView,
  dpaAcceptedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});

/** What an admin sees: the posture plus the organization's own contact details. Never secrets. */
export const AdminTenantView = TenantView.extend({
  contactEmail: z.string().nullable(),
  updatedAt: z.iso.datetime(),
});

export const PolicyPatchInput = z
  .strictObject({
    requireEmailProofBeforeFreeCreate: z.boolean().optional(),
    requirePhoneProofBeforeFreeCreate: z.boolean().optional(),
    requireKycBeforeFreeCreate: z.boolean().optional(),
    requireSecondApprovalToClearAml: z.boolean().optional(),
    walletCredentialCountry: z.boolean().optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "give at least one policy flag" })
  .meta({ minProperties: 1, description: "At least one flag; omitted flags are left unchanged." });
export type PolicyPatchInput = z.output<typeof PolicyPatchInput>;

export const MAX_ALLOWLIST_ENTRIES = 100;

/** Entries are checked here (naming the index of each bad one) and normalised by the service. */
export const IpAllowlistInput = z.strictObject({
  cidrs: z
    .array(z.string().max(64))
    .max(MAX_ALLOWLIST_ENTRIES)
    .describe("The whole new list: CIDRs or single addresses (IPv4 or IPv6). Stored normalised; an empty list removes the allowlist.")
    .superRefine((cidrs, ctx) => {
      cidrs.forEach((c, i) => {
        if (canonicalCidr(c) === null) {
          ctx.addIssue({
            code: "custom",
            path: [i],
            message: `cidrs[${i}] is not a valid CIDR or address (e.g. 203.0.113.0/24, 198.51.100.7, 2001:db8::/32)`,
          });
        }
      });
    }),
});
export type IpAllowlistInput = z.output<typeof IpAllowlistInput>;

export const IpAllowlistView = z.object({
  cidrs: z.array(z.string()),
  /** Present when the caller's own address is outside the new list: its next call will be refused. */
  warning: z.string().optional(),
});

/** Shape only; whether a code is assigned is the service's check (400 INVALID_COUNTRY_CODE). */
const CountryList = z
  .array(z.string().regex(/^[A-Za-z]{2}$/, "a country is a 2-letter ISO 3166-1 alpha-2 code"))
  .max(300)
  .describe(
    "ISO 3166-1 alpha-2 codes, any case; stored upper case, de-duplicated and sorted. Omit to leave unchanged; [] removes the restriction.",
  );

export const CountryPolicyInput = z.strictObject({
  allowedCountries: CountryList.optional(),
  blockedCountries: CountryList.optional(),
});
export type CountryPolicyInput = z.output<typeof CountryPolicyInput>;

export const CountryPolicyView = z.object({ allowedCountries: z.array(z.string()), blockedCountries: z.array(z.string()) });

export const SigningEnabledView = z.object({
  signingEnabled: z.literal(true),
  /** HMAC key for X-BI-Signature: shown in this answer only. */
  signingSecret: z.string(),
  warning: z.string(),
});

export const SigningDisabledView = z.object({ signingEnabled: z.literal(false) });

export const DpaAcceptedView = z.object({ dpaAcceptedAt: z.iso.datetime() });
