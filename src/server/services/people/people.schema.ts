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
  erasedAt: z.iso.datetime().nullable().describe("When the person was erased (docs/data-protection.md); null otherwise"),
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

/** A person of the caller's organization in a path: their DID (URL-encoded) or id. */
export const PersonPathParams = z.object({ personDid: z.string().min(1).max(300) });

/** What an erasure did: counts only, nothing about the person. */
export const PersonErased = z
  .object({
    personDid: z.string(),
    status: z.literal("erased"),
    requestedAt: z.iso.datetime(),
    erasedAt: z.iso.datetime(),
    bindingsRevoked: z.int().describe("Bindings this erasure revoked (revoked earlier ones are not counted)"),
    accountsCleared: z.int().describe("Accounts linked to the person whose contacts and device data were blanked"),
    casesRedacted: z.int().describe("AML cases about the person whose reasons, notes, comments and evidence were blanked"),
  })
  .meta({ id: "PersonErased" });

/** An erasure request as it stands. */
export const PersonErasureView = z
  .object({
    personDid: z.string(),
    status: z.enum(["scheduled", "completed", "withdrawn"]),
    requestedAt: z.iso.datetime(),
    erasableFrom: z.iso.datetime().nullable().describe("When the AML retention period ends (scheduled requests held by it)"),
    heldBy: z.array(z.enum(["open_case", "aml_retention"])),
    erasedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "PersonErasure" });
