import { z } from "zod";
import { isCountryCode } from "../../platform/countries";

const Severity = z.enum(["low", "medium", "high", "critical"]);

/** Hex SHA-256 of the applicant's identity attributes (Person.applicantIdHash); stored lower case. */
export const ApplicantIdHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "must be a hex SHA-256 (64 characters)")
  .transform((s) => s.toLowerCase());

export const ChainAccountName = z.string().regex(/^[a-z1-5.]{1,12}$/, "must be an Antelope account name");

export const ScreenApplicantInput = z.strictObject({
  applicantIdHash: ApplicantIdHash,
  /** With a name the lists are screened now (fresh); without one the person's stored result is answered. */
  fullName: z.string().trim().min(2).max(200).optional(),
  birthDate: z.iso.date().optional(),
  country: z
    .string()
    .length(2)
    .refine(isCountryCode, "must be an ISO 3166-1 alpha-2 code")
    .transform((c) => c.toUpperCase())
    .optional(),
});
export type ScreenApplicantInput = z.output<typeof ScreenApplicantInput>;

export const ScreenMatchView = z.object({
  entryId: z.uuid(),
  list: z.string(),
  listVersionId: z.uuid(),
  externalId: z.string(),
  name: z.string(),
  topics: z.array(z.string()),
  score: z.number(),
});

export const ScreeningView = z.object({
  /** fresh: screened by this call; stored: the person's latest screening (at KYC approval or on demand). */
  source: z.enum(["fresh", "stored"]),
  resultId: z.uuid(),
  screenedAt: z.iso.datetime(),
  sanctions: z.boolean(),
  pep: z.boolean(),
  severity: Severity.nullable(),
  /** Best match score 0–100. */
  score: z.int(),
  listVersions: z.array(z.string()),
  matches: z.array(ScreenMatchView),
});

export const ScreenApplicantView = z.object({
  applicantIdHash: z.string(),
  personDid: z.string().nullable(),
  denylisted: z.boolean(),
  denylist: z.object({ reason: z.string(), addedAt: z.iso.datetime() }).nullable(),
  /** The person's current flags (an AML clear lowers them), null when no person has this hash. */
  flags: z.object({ pepFlag: z.boolean(), sanctionsFlag: z.boolean() }).nullable(),
  screening: ScreeningView.nullable(),
  /** Worst of the screening severity and the denylist (critical). */
  severity: Severity.nullable(),
});

export const ScreenAccountInput = z.strictObject({ chainAccount: ChainAccountName });

export const ScreenAccountView = z.object({
  chainAccount: z.string(),
  /** 0–100, highest of the lists that label the account; 0 when none does. */
  score: z.int(),
  labels: z.array(z.string()),
  severity: Severity.nullable(),
  resultId: z.uuid(),
  listVersions: z.array(z.string()),
});

export const DenylistAddInput = z.strictObject({
  applicantIdHash: ApplicantIdHash,
  reason: z.string().trim().min(3).max(500),
});
export type DenylistAddInput = z.output<typeof DenylistAddInput>;

export const DenylistEntryView = z.object({
  applicantIdHash: z.string(),
  reason: z.string(),
  addedBy: z.string(),
  createdAt: z.iso.datetime(),
});
export const DenylistView = z.object({ entries: z.array(DenylistEntryView) });
export const DenylistParams = z.object({ applicantIdHash: z.string() });
export const DenylistRemovedView = z.object({ applicantIdHash: z.string(), removed: z.literal(true) });
