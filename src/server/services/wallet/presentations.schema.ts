import { z } from "zod";

/** The claims of our wallet credential a relying party may ask for (services/wallet/metadata.ts). */
export const WALLET_CLAIMS = [
  "kyc_level",
  "age_over_18",
  "age_over_21",
  "nationality_tier",
  "country",
  "not_sanctioned_at",
  "account",
  "pairwise_id",
] as const;

export const PresentationRequestInput = z
  .object({
    claims: z
      .array(z.enum(WALLET_CLAIMS))
      .min(1)
      .max(WALLET_CLAIMS.length)
      .refine((a) => new Set(a).size === a.length, "each claim once")
      .describe("The claims of the wallet credential to ask for, and only those: the wallet discloses nothing else."),
    purpose: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .optional()
      .describe("Why you ask, in a sentence the person reads on the consent page and in their wallet."),
    accountDid: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe(
        "When given, only a credential naming this account (did:antelope:<chain>:<name>) is accepted; `account` is then asked for too.",
      ),
  })
  .strict()
  .meta({ id: "PresentationRequestInput" });

export const PresentationStatus = z.enum(["pending", "verified", "refused", "declined", "expired"]);

const claimValue = z.union([z.string(), z.number(), z.boolean()]);

export const PresentationView = z
  .object({
    presentationId: z.uuid(),
    status: PresentationStatus.describe(
      "pending until the wallet answers or the person declines; verified, refused (see refusal), declined, or expired 10 minutes after creation.",
    ),
    claims: z.array(z.string()).describe("The claims asked for."),
    requestUri: z
      .string()
      .describe("`openid4vp://?client_id=…&request_uri=…`: the request for the wallet, as a QR code or a link on the person's phone."),
    consentPageUrl: z
      .string()
      .describe("Our hosted page that shows the person who asks for what, with the QR code, the link and a way to decline."),
    dcqlQuery: z.record(z.string(), z.unknown()).describe("The DCQL query the request carries (OpenID4VP 1.0 §6)."),
    disclosed: z
      .record(z.string(), claimValue)
      .nullable()
      .describe("When verified: the claims the person disclosed, exactly those asked for; null otherwise."),
    reuse: z
      .boolean()
      .describe(
        "True when the credential was issued for another organization: the person consented to reuse it here (recorded in both audit trails).",
      ),
    refusal: z.string().nullable().describe("When refused: why, a fixed code (docs/api/guides/wallets.md); null otherwise."),
    expiresAt: z.iso.datetime(),
    respondedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "PresentationView" });

export const PresentationParams = z.object({ presentationId: z.uuid() });
