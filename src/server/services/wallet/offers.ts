import "./openid4vc";
import { randomUUID } from "node:crypto";
import { preAuthorizedCodeGrantIdentifier } from "@openid4vc/oauth2";
import type { z } from "zod";
import { publicUrl } from "@/env";
import type { ServiceContext } from "../../context";
import { hmacSha256Hex, randomDigits, randomToken, sha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { deriveKey } from "../../crypto/secret-box";
import { conflict, notFound } from "../../errors";
import { findAccount, personIdFromDid } from "../../platform/account-ref";
import { appendAudit } from "../audit";
import { CONFIGURATION_ID, issuer, issuerMetadataResult } from "./metadata";
import type { WalletOfferCreated, WalletOfferInput } from "./offers.schema";

/** An offer must be redeemed within 10 minutes; its transaction code has 6 digits and 5 tries. */
export const OFFER_TTL_SEC = 10 * 60;
export const TX_CODE_DIGITS = 6;
export const TX_CODE_MAX_ATTEMPTS = 5;

/** The transaction code's keyed hash: 6 digits are a million guesses, so never a plain hash; bound to the offer. */
export const txCodeHash = (offerId: string, txCode: string) => hmacSha256Hex(deriveKey("oid4vci-tx-code"), `${offerId}:${txCode}`);

/**
 * POST /v1/wallet/offers: a credential offer (OpenID4VCI 1.0, pre-authorized code) for an approved
 * person, optionally naming an account bound to them. The pre-authorized code travels in the
 * offer; the transaction code is answered once, for the tenant to give the person on another
 * channel. Only their hashes are kept; the audit entry holds neither.
 */
export async function createWalletOffer(
  ctx: ServiceContext,
  input: z.output<typeof WalletOfferInput>,
): Promise<z.input<typeof WalletOfferCreated>> {
  const personId = personIdFromDid(issuerDid(), input.personDid);
  const person = personId ? await ctx.db.person.findFirst({ where: { id: personId, orgId: ctx.org.id } }) : null;
  if (!person) throw notFound("Person");
  if (person.erasedAt) throw conflict("person_erased", "This person has been erased; no credential can be offered to them.");
  if (person.kycStatus !== "approved")
    throw conflict("person_not_approved", "The person's KYC is not approved; a credential needs an approved person.");
  if (person.sanctionsFlag) throw conflict("person_flagged", "The person is flagged by sanctions screening; no credential is offered.");
  let account: { id: string; did: string } | null = null;
  if (input.accountDid) {
    const found = await findAccount(ctx.db, ctx.org.id, input.accountDid);
    const binding = await ctx.db.accountBinding.findFirst({
      where: { orgId: ctx.org.id, accountId: found.id, personId: person.id, status: "active" },
    });
    if (!binding) throw conflict("account_not_bound", "This account is not bound to this person.");
    account = { id: found.id, did: found.did };
  }

  const offerId = randomUUID();
  const preAuthorizedCode = randomToken(32);
  const txCode = randomDigits(TX_CODE_DIGITS);
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + OFFER_TTL_SEC * 1000);
  const { credentialOffer, credentialOfferObject } = await issuer().createCredentialOffer({
    issuerMetadata: issuerMetadataResult(),
    credentialConfigurationIds: [CONFIGURATION_ID],
    grants: {
      [preAuthorizedCodeGrantIdentifier]: {
        "pre-authorized_code": preAuthorizedCode,
        tx_code: { input_mode: "numeric", length: TX_CODE_DIGITS, description: "The 6-digit code you were given with this offer." },
      },
    },
  });
  await ctx.db.$transaction(async (tx) => {
    await tx.walletOffer.create({
      data: {
        id: offerId,
        orgId: ctx.org.id,
        personId: person.id,
        accountId: account?.id ?? null,
        preAuthCodeHash: sha256Hex(preAuthorizedCode),
        txCodeHash: txCodeHash(offerId, txCode),
        expiresAt,
        createdAt: now,
      },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "wallet.offer_created",
        subjectType: "person",
        subject: input.personDid,
        data: {
          offerId,
          credentialConfigurationId: CONFIGURATION_ID,
          accountDid: account?.did ?? null,
          expiresAt: expiresAt.toISOString(),
        },
      },
    );
  });
  // The hosted offer page takes the offer after `#`: browsers keep the fragment to themselves, so
  // neither our server nor a log in between ever sees the pre-authorized code.
  const offerQuery = credentialOffer.slice(credentialOffer.indexOf("?") + 1);
  return {
    offerId,
    credentialOffer: { ...credentialOfferObject, grants: credentialOfferObject.grants ?? {} },
    credentialOfferUri: credentialOffer,
    offerPageUrl: `${publicUrl("/wallet/offer")}#${offerQuery}`,
    txCode,
    expiresAt: expiresAt.toISOString(),
  };
}
