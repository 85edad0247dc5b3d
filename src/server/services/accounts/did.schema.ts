import { z } from "zod";

// The DID documents the resolution routes serve (did-documents.ts builds them).

const Multikey = z
  .object({ id: z.string(), type: z.literal("Multikey"), controller: z.string(), publicKeyMultibase: z.string() })
  .meta({ id: "Multikey" });

export const IssuerDidDocument = z
  .object({
    "@context": z.array(z.string()),
    id: z.string(),
    verificationMethod: z.array(Multikey),
    assertionMethod: z.array(z.string()),
  })
  .meta({ id: "IssuerDidDocument" });

export const PersonDidParams = z.object({ personId: z.string() });
export const PersonDidDocument = z
  .object({
    "@context": z.array(z.string()),
    id: z.string(),
    controller: z.string(),
    kycStatus: z.string(),
    bindings: z.array(z.object({ credentialId: z.string(), status: z.enum(["active", "suspended", "revoked"]) })),
  })
  .meta({ id: "PersonDidDocument" });

export const OrgDidParams = z.object({ orgId: z.string() });
export const OrganizationDidDocument = z
  .object({ "@context": z.array(z.string()), id: z.string(), controller: z.string(), kybStatus: z.string() })
  .meta({ id: "OrganizationDidDocument" });
