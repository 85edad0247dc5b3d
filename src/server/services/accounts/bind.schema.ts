import { z } from "zod";
import { exactlyOneProof, ProofFields, ProofRequests } from "../../platform/wallet-proof.schema";
import { CredentialStatusEntry } from "../credential-status";

const did = z.string().min(1).max(300);

export const BindChallengeInput = z.object({ accountDid: did, personDid: did }).strict();

export const BindChallenge = z.object({
  nonce: z.string(),
  payloadToSign: z.string(),
  expiresAt: z.iso.datetime(),
  ...ProofRequests,
});

export const BindConfirmInput = z
  .object({
    accountDid: did,
    personDid: did,
    nonce: z.string().min(1).max(200),
    ...ProofFields,
    deviceFingerprint: z.string().min(1).max(512).optional(),
  })
  .strict()
  .superRefine(exactlyOneProof);

export const DataIntegrityProofView = z.object({
  type: z.literal("DataIntegrityProof"),
  cryptosuite: z.literal("eddsa-jcs-2022"),
  created: z.string(),
  verificationMethod: z.string(),
  proofPurpose: z.string(),
  proofValue: z.string(),
});

export const AccountBindingCredential = z
  .object({
    "@context": z.array(z.string()),
    id: z.string(),
    type: z.array(z.string()),
    issuer: z.string(),
    validFrom: z.string(),
    credentialSubject: z.object({ id: z.string(), account: z.string(), kycLevel: z.string() }),
    credentialStatus: z
      .array(CredentialStatusEntry)
      .optional()
      .describe("Where the credential's revocation and suspension bits are published (W3C Bitstring Status List)"),
    proof: DataIntegrityProofView,
  })
  .loose();

export const BindConfirmed = z.object({
  bound: z.literal(true),
  accountDid: z.string(),
  personDid: z.string(),
  bindingVcHash: z.string(),
  lifecycle: z.enum(["bound", "unlocked"]).describe("bound for a new binding; a reinstated binding keeps its account's lifecycle"),
  credential: AccountBindingCredential,
  reinstated: z
    .boolean()
    .optional()
    .describe(
      "true when the signature reinstated a binding suspended because the account's keys changed (the credential is the one issued at binding)",
    ),
});

export const UnlockInput = z.object({ accountDid: did }).strict();
export const Unlocked = z.object({ accountDid: z.string(), lifecycle: z.literal("unlocked"), transactionId: z.string().nullable() });
