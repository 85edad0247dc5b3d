import { z } from "zod";

// The wallet proof forms a challenge can be answered with (wallet-proof.ts), as request and
// answer fields of every route whose action an account's key authorises.

const B58 = "[1-9A-HJ-NP-Za-km-z]";
// WebAuthn signatures carry the authenticator data and client JSON, so they are much longer.
const AntelopeSignature = z
  .string()
  .max(4000)
  .regex(new RegExp(`^SIG_(K1_${B58}{20,200}|R1_${B58}{20,200}|WA_${B58}{20,4000})$`), "must be a SIG_K1_, SIG_R1_ or SIG_WA_ signature");

/** The same challenge for wallets that answer identity requests and for wallets that sign transactions. */
export const ProofRequests = {
  identityRequest: z
    .object({
      uri: z.string().describe("An ESR identity request (EEP-7, version 3) for this challenge, as an esr: URI"),
      scope: z.string().describe("The scope drawn for this challenge alone; the identity proof signs it"),
      chainId: z.string(),
      expiresAt: z.iso.datetime().describe("The proof's expiration must be no later than this"),
    })
    .optional()
    .describe("The same challenge for wallets that answer identity requests (Anchor, WharfKit SessionKit login)"),
  transaction: z
    .object({
      chainId: z.string(),
      expiresAt: z.iso.datetime().describe("The transaction's expiration must be no later than this"),
      action: z.object({
        account: z.literal("").describe("The empty name: no account can hold it, so the action never executes"),
        name: z.literal("bindproof"),
        authorization: z.array(z.object({ actor: z.string(), permission: z.string() })),
        data: z.string().describe("The action's data, serialized (hex): the challenge's nonce and payloadToSign"),
      }),
    })
    .optional()
    .describe("The same challenge as an action for wallets that sign transactions: sign it with broadcast off"),
};

const ProofTransaction = z.union([
  z.string().regex(/^([0-9a-fA-F]{2}){1,20000}$/, "must be a packed transaction in hex"),
  z.record(z.string(), z.unknown()),
]);

/** The proof fields of a request; exactly one form is given (checked by `exactlyOneProof`). */
export const ProofFields = {
  signature: AntelopeSignature.optional().describe("A signature over the SHA-256 of payloadToSign"),
  signatures: z
    .array(AntelopeSignature)
    .min(1)
    .max(16)
    .optional()
    .describe("Several signatures over payloadToSign, for a permission that needs more than one key"),
  identityProof: z
    .union([z.string().max(4000), z.record(z.string(), z.unknown())])
    .optional()
    .describe('An ESR identity proof for the challenge\'s identityRequest ("EOSIO <base64>", or its JSON)'),
  signedTransaction: z
    .object({ transaction: ProofTransaction, signatures: z.array(AntelopeSignature).min(1).max(16) })
    .strict()
    .optional()
    .describe("The challenge's transaction, signed and not broadcast: the transaction (packed hex or JSON) and its signatures"),
};

const PROOF_FIELDS = ["signature", "signatures", "identityProof", "signedTransaction"] as const;

/** A refinement: exactly one proof form, `signature` and `signatures` counting as one. */
export function exactlyOneProof(v: Partial<Record<(typeof PROOF_FIELDS)[number], unknown>>, ctx: z.RefinementCtx) {
  const given = PROOF_FIELDS.filter((f) => v[f] !== undefined);
  const forms = new Set(given.map((f) => (f === "signatures" ? "signature" : f)));
  if (forms.size !== 1)
    ctx.addIssue({
      code: "custom",
      path: [given[1] ?? "signature"],
      message: "give exactly one proof: signature (or signatures), identityProof or signedTransaction",
    });
}
