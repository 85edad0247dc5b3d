import { z } from "zod";
import { isCountryCode } from "../../platform/countries";
import { PROVIDER_NAMES } from "../../providers/kyc/types";

const did = z.string().min(1).max(300);
const levelName = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 letters, digits, '.', '_' or '-'");

export const KycStartInput = z.object({
  accountDid: did.optional(),
  levelName: levelName.optional(),
  /** Honoured only under /identity on this deployment's public host; anything else is ignored. */
  redirectUrl: z.string().max(2048).optional(),
  provider: z
    .enum(PROVIDER_NAMES)
    .optional()
    .describe("Use this configured provider only, with no failover; e.g. eudi_wallet for the person's EU digital identity wallet"),
});
export type KycStartInput = z.infer<typeof KycStartInput>;

export const KycStarted = z.object({
  personDid: z.string(),
  verificationUrl: z.string(),
  accessToken: z.string(),
  expiresAt: z.iso.datetime(),
  provider: z.string(),
  redirectUrl: z.string().nullable(),
});

export const KycStatusQuery = z.object({
  personDid: did,
  refresh: z.enum(["1", "true", "0", "false"]).optional(),
});

export const KycStatusView = z.object({
  personDid: z.string(),
  status: z.enum(["not_started", "pending", "in_review", "approved", "rejected", "retry"]),
  level: z.string(),
  provider: z.string().nullable(),
  country: z.string().nullable(),
  pepFlag: z.boolean(),
  sanctionsFlag: z.boolean(),
  riskScore: z.number().int(),
  applicantIdHash: z.string().nullable(),
  reviewedAt: z.iso.datetime().nullable(),
  createToken: z.string().optional(),
  createTokenExpiresAt: z.iso.datetime().optional(),
  pairwiseId: z.string().optional().describe("The person's id for this organization: the same for two verifications of one document here"),
  duplicateOf: z
    .enum(["document", "name_birth"])
    .optional()
    .describe(
      "Another person of the organization has the same document (document) or the same name, birth date and nationality (name_birth)",
    ),
  createRefused: z.literal(true).optional().describe("No create token: the organization refuses a second person with one document"),
});

export const SandboxOutcome = z.enum(["approved", "rejected", "retry", "pep", "sanctions"]);

/** A test passport number: two sandbox verifications with the same one are the same human (docs/api/guides/unique-person.md). */
const documentNumber = z
  .string()
  .regex(/^[A-Z0-9]{5,20}$/, "5 to 20 upper-case letters and digits")
  .optional()
  .describe("Sandbox only: the test passport's number; two verifications with the same number are the same human");
export const SandboxKycCompleteInput = z.object({ personDid: did, outcome: SandboxOutcome, documentNumber });
export const SandboxHostedInput = z.object({ outcome: SandboxOutcome, documentNumber });
export const SandboxHostedParams = z.object({ applicantId: z.string().regex(/^sbx_[A-Za-z0-9_-]{8,64}$/) });
export const SandboxCompleted = z.object({ personDid: z.string(), status: KycStatusView.shape.status, redirectUrl: z.string().nullable() });

export const CallbackParams = z.object({ provider: z.enum(["sandbox", "sumsub", "veriff"]) });
export const CallbackReceived = z.object({ received: z.literal(true), duplicate: z.boolean() });

const country = z
  .string()
  .length(2)
  .refine(isCountryCode, "must be an ISO 3166-1 alpha-2 code")
  .transform((c) => c.toUpperCase());
const text = (max: number) => z.string().trim().min(1).max(max);

export const KybStartInput = z
  .object({
    legalName: text(200),
    registrationNumber: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9 ./-]{1,49}$/, "must be 2-50 letters, digits, spaces, '.', '/' or '-'"),
    country,
    address: z
      .object({
        line1: text(200),
        line2: text(200).optional(),
        city: text(100),
        postalCode: z
          .string()
          .trim()
          .regex(/^[A-Za-z0-9 -]{2,12}$/)
          .optional(),
        country,
      })
      .strict(),
    levelName: levelName.optional(),
  })
  .strict();
export type KybStartInput = z.infer<typeof KybStartInput>;

export const KybStatusEnum = z.enum(["not_started", "pending", "in_review", "approved", "rejected"]);

export const KybStarted = z.object({
  organizationDid: z.string(),
  kybStatus: KybStatusEnum,
  sessionId: z.string(),
  provider: z.string(),
  verificationUrl: z.string().nullable(),
});

export const KybSessionView = z.object({
  sessionId: z.string(),
  legalName: z.string(),
  registrationNumber: z.string().nullable(),
  country: z.string().nullable(),
  provider: z.string(),
  status: KybStatusEnum,
  labels: z.array(z.string()),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const OrganizationsView = z.object({
  organization: z.object({ organizationId: z.string(), organizationDid: z.string(), name: z.string(), kybStatus: KybStatusEnum }),
  businesses: z.array(KybSessionView),
});
