import { z } from "zod";

const did = z.string().min(1).max(300);

export const WalletOfferInput = z
  .object({
    personDid: did.describe("The approved person the credential is for: did:web:<host>:people:<id>."),
    accountDid: did
      .optional()
      .describe("An account bound to that person (did:antelope:<chain>:<name>): the credential then names it in its `account` claim."),
  })
  .strict()
  .meta({ id: "WalletOfferInput" });

export const WalletOfferCreated = z
  .object({
    offerId: z.uuid(),
    credentialOffer: z
      .object({
        credential_issuer: z.string(),
        credential_configuration_ids: z.array(z.string()),
        grants: z.record(z.string(), z.unknown()),
      })
      .loose()
      .describe("The OpenID4VCI 1.0 credential offer (pre-authorized code grant, a 6-digit transaction code required)."),
    credentialOfferUri: z
      .string()
      .describe("`openid-credential-offer://?credential_offer=<urlencoded JSON>`: show it as a QR code or a link the wallet opens."),
    offerPageUrl: z
      .string()
      .describe(
        "Our hosted page for this offer: `<public origin>/wallet/offer#credential_offer=<urlencoded JSON>`. Send the person there to scan a QR code or open their wallet app. The offer rides after `#`, which browsers never send to a server, so the page is drawn in the person's browser and no server log sees the pre-authorized code.",
      ),
    txCode: z
      .string()
      .regex(/^\d{6}$/)
      .describe("Shown once: give it to the person on another channel than the offer (an SMS, a screen in your app)."),
    expiresAt: z.iso.datetime().describe("The offer must be redeemed before this (10 minutes)."),
  })
  .meta({ id: "WalletOfferCreated" });
