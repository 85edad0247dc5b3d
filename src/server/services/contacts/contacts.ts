import type { ServiceContext } from "../../context";
import { openContacts } from "../../crypto/account-box";
import { issuerDid } from "../../crypto/issuer-keys";
import { conflict } from "../../errors";
import { findAccount, personDidOf } from "../../platform/account-ref";
import {
  accountsWithContact,
  maskEmail,
  maskPhone,
  normalizeEmail,
  normalizePhone,
  verifiedPhoneHash,
} from "../../platform/contact-address";
import { confirmChallenge, issueProofToken, OTP, startChallenge } from "./otp";

const codeMessage = (code: string, what: string) => ({
  subject: `Your verification code: ${code}`,
  text: `Your code to ${what} is ${code}. It expires in ${OTP.ttlSec / 60} minutes. If you did not ask for it, ignore this message.`,
});

/** POST /v1/email/otp/start: a code to prove an address before free create. An address already on an account is 409. */
export async function startEmailVerification(ctx: ServiceContext, input: { email: string }) {
  const email = normalizeEmail(input.email);
  if (await ctx.db.account.findFirst({ where: accountsWithContact(ctx.org.id, "email", email), select: { id: true } })) {
    throw conflict("email_taken", "This email address is already bound to an account.");
  }
  const { challenge, devCode } = await startChallenge(ctx.db, {
    orgId: ctx.org.id,
    purpose: "verify",
    channel: "email",
    address: email,
    clientIp: ctx.clientIp,
    message: (code) => codeMessage(code, "verify your email address"),
  });
  return {
    challengeId: challenge.id,
    expiresAt: challenge.expiresAt.toISOString(),
    emailMasked: maskEmail(email),
    ...(devCode ? { devCode } : {}),
  };
}

export async function confirmEmailVerification(ctx: ServiceContext, input: { challengeId: string; code: string }) {
  const challenge = await confirmChallenge(ctx.db, { orgId: ctx.org.id, purpose: "verify", channel: "email", ...input });
  const proof = await issueProofToken(ctx.db, challenge);
  return { emailProofToken: proof.token, expiresInSec: proof.expiresInSec, emailMasked: maskEmail(challenge.address) };
}

/** POST /v1/phone/otp/start: the code goes by SMS only, never in the answer. */
export async function startPhoneVerification(ctx: ServiceContext, input: { phone: string }) {
  const phone = normalizePhone(input.phone);
  const { challenge } = await startChallenge(ctx.db, {
    orgId: ctx.org.id,
    purpose: "verify",
    channel: "phone",
    address: phone,
    clientIp: ctx.clientIp,
    message: (code) => codeMessage(code, "verify your phone number"),
  });
  return { challengeId: challenge.id, expiresAt: challenge.expiresAt.toISOString(), phoneMasked: maskPhone(phone) };
}

/**
 * The approved person this verified number already points to, if any: the number a KYC provider
 * verified for them, or the verified phone of an account bound to them (binding still in force).
 */
async function personKnownByPhone(ctx: ServiceContext, phone: string) {
  const orgId = ctx.org.id;
  // Sealed under the person's key, the number is found by its keyed hash (a clear one written before, by value).
  const verified = await ctx.db.person.findFirst({
    where: { orgId, OR: [{ verifiedPhoneHash: verifiedPhoneHash(orgId, phone) }, { verifiedPhone: phone }] },
    select: { id: true },
  });
  if (verified) return verified.id;
  const binding = await ctx.db.accountBinding.findFirst({
    where: {
      orgId,
      revokedAt: null,
      account: { ...accountsWithContact(orgId, "phone", phone), phoneVerifiedAt: { not: null } },
      person: { kycStatus: "approved" },
    },
    orderBy: { createdAt: "desc" },
    select: { personId: true },
  });
  return binding?.personId ?? null;
}

/**
 * Confirms a phone code. A phone is never identity evidence: the answer names the person already
 * known by this verified number (a soft signal), and never creates or promotes a Person.
 */
export async function confirmPhoneVerification(ctx: ServiceContext, input: { challengeId: string; code: string }) {
  const challenge = await confirmChallenge(ctx.db, { orgId: ctx.org.id, purpose: "verify", channel: "phone", ...input });
  const proof = await issueProofToken(ctx.db, challenge);
  const personId = await personKnownByPhone(ctx, challenge.address);
  return {
    phoneProofToken: proof.token,
    expiresInSec: proof.expiresInSec,
    personDid: personId ? personDidOf(issuerDid(), personId) : null,
    softIdentity: personId !== null,
  };
}

/** GET /v1/accounts/{did}/contact: always masked (opened under the account's data key, then masked). */
export async function getContacts(ctx: ServiceContext, ref: string) {
  const a = await findAccount(ctx.db, ctx.org.id, ref);
  const { email, phone } = openContacts(a);
  return {
    accountDid: a.did,
    email: email ? maskEmail(email) : null,
    emailVerified: !!a.emailVerifiedAt,
    phone: phone ? maskPhone(phone) : null,
    phoneVerified: !!a.phoneVerifiedAt,
  };
}
