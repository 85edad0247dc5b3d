import { z } from "zod";

/**
 * An organization's on-chain attestation settings (docs/api/guides/onchain.md, "Publishing from
 * the service"): whether its bindings are published into the attestation contract, what a row
 * carries, and how far the chain is behind the database.
 */

const MAX_VALID_DAYS = 3650;

export const AttestationSettings = z
  .object({
    enabled: z.boolean().describe("Whether the organization's bindings are published into the attestation contract (off by default)"),
    publishCountry: z
      .boolean()
      .describe("Whether a row carries the person's country (ISO 3166-1 alpha-2) beside its risk tier; off by default, the tier alone"),
    validDays: z
      .int()
      .min(1)
      .max(MAX_VALID_DAYS)
      .describe("Days a published attestation holds after its binding was made (its expires field); default 365"),
    orgNumber: z
      .string()
      .regex(/^[1-9][0-9]*$/)
      .nullable()
      .describe(
        "The organization's number on chain (the row's org field), a decimal string; assigned at the first PUT, never reused, null before. Give it to contracts that accept only your users",
      ),
    contract: z
      .string()
      .nullable()
      .describe("The attestation contract's account on this deployment; null when the deployment publishes nothing"),
    issuer: z
      .string()
      .nullable()
      .describe("The issuer's account and permission (account@permission) the service signs with; null like contract"),
    pending: z.int().min(0).describe("Accounts of the organization whose on-chain row still has to follow a change"),
    lastPublishedAt: z.iso
      .datetime()
      .nullable()
      .describe("When a change of one of the organization's accounts was last published; null before the first"),
  })
  .meta({ id: "AttestationSettings" });
export type AttestationSettings = z.output<typeof AttestationSettings>;

const S = AttestationSettings.shape;
export const AttestationSettingsInput = z
  .strictObject({ enabled: S.enabled.optional(), publishCountry: S.publishCountry.optional(), validDays: S.validDays.optional() })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "give at least one setting" })
  .meta({
    id: "AttestationSettingsInput",
    minProperties: 1,
    description:
      "At least one setting; omitted settings are left unchanged. Enabling needs a deployment with an attestation contract (409 attestations_not_configured otherwise).",
  });
export type AttestationSettingsInput = z.output<typeof AttestationSettingsInput>;
