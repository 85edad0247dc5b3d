import { z } from "zod";

export const StatusListParams = z.object({ listId: z.string().max(100) });

export const BitstringStatusListCredential = z
  .object({
    "@context": z.array(z.string()),
    id: z.string(),
    type: z.array(z.string()),
    issuer: z.string(),
    validFrom: z.string(),
    credentialSubject: z.object({
      id: z.string(),
      type: z.literal("BitstringStatusList"),
      statusPurpose: z.enum(["revocation", "suspension"]),
      encodedList: z.string().describe("GZIP-compressed bitstring, multibase base64url (u…); index 0 is the first byte's highest bit"),
    }),
    proof: z.object({
      type: z.literal("DataIntegrityProof"),
      cryptosuite: z.literal("eddsa-jcs-2022"),
      created: z.string(),
      verificationMethod: z.string(),
      proofPurpose: z.string(),
      proofValue: z.string(),
    }),
  })
  .loose()
  .meta({ id: "BitstringStatusListCredential" });

export const CredentialStatusEntry = z
  .object({
    id: z.string(),
    type: z.literal("BitstringStatusListEntry"),
    statusPurpose: z.enum(["revocation", "suspension"]),
    statusListIndex: z.string(),
    statusListCredential: z.string(),
  })
  .meta({ id: "BitstringStatusListEntry" });
