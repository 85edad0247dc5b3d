import { z } from "zod";

export const KycStatusName = z.enum(["not_started", "pending", "in_review", "approved", "rejected", "retry"]);

export const PersonSummary = z.object({
  personDid: z.string(),
  kycStatus: KycStatusName,
  kycLevel: z.string(),
  kycProvider: z.string().nullable(),
  country: z.string().nullable(),
  pepFlag: z.boolean(),
  sanctionsFlag: z.boolean(),
  riskScore: z.int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** Paging like GET /v1/admin/accounts: newest first, `before` = the previous page's `nextBefore`. */
export const ListPeopleQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  kycStatus: KycStatusName.optional(),
  flagged: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
  before: z.iso.datetime().optional(),
});
export type ListPeopleQuery = z.output<typeof ListPeopleQuery>;

/** The person page: by id (uuid) or person DID. */
export const PersonRef = z.object({ id: z.string().min(1).max(300) });

export const PeopleList = z.object({ people: z.array(PersonSummary), nextBefore: z.string().nullable() });
