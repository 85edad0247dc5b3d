import { z } from "zod";
import { exactlyOneProof, ProofFields, ProofRequests } from "../../platform/wallet-proof.schema";

export const EmailOtpStartInput = z.object({ email: z.email().max(254) });
export const PhoneOtpStartInput = z.object({ phone: z.string().min(4).max(32) });
export const OtpConfirmInput = z.object({ challengeId: z.uuid(), code: z.string().min(1).max(12) });

export const EmailOtpStarted = z.object({
  challengeId: z.uuid(),
  expiresAt: z.iso.datetime(),
  emailMasked: z.string(),
  devCode: z.string().optional(),
});
export const PhoneOtpStarted = z.object({ challengeId: z.uuid(), expiresAt: z.iso.datetime(), phoneMasked: z.string() });
export const EmailProof = z.object({ emailProofToken: z.string(), expiresInSec: z.int(), emailMasked: z.string() });
export const PhoneProof = z.object({
  phoneProofToken: z.string(),
  expiresInSec: z.int(),
  personDid: z.string().nullable(),
  softIdentity: z.boolean(),
});

export const ContactChallengeInput = z.object({ accountDid: z.string().min(1).max(300), channel: z.enum(["email", "phone"]) });
export const ContactChallenge = z.object({ nonce: z.string(), payloadToSign: z.string(), expiresAt: z.iso.datetime(), ...ProofRequests });
// A signature that is not one is refused as INVALID_SIGNATURE, as it always was, not as a validation error.
const signed = {
  accountDid: z.string().min(1).max(300),
  nonce: z.string().min(1).max(200),
  ...ProofFields,
  signature: z.string().min(1).max(4000).optional().describe("A signature over the SHA-256 of payloadToSign"),
};
export const ContactEmailStartInput = z.object({ ...signed, email: z.email().max(254) }).superRefine(exactlyOneProof);
export const ContactPhoneStartInput = z.object({ ...signed, phone: z.string().min(4).max(32) }).superRefine(exactlyOneProof);
export const ContactChangeStarted = z.object({
  challengeId: z.uuid(),
  expiresAt: z.iso.datetime(),
  emailMasked: z.string().optional(),
  phoneMasked: z.string().optional(),
  devCode: z.string().optional(),
});
export const ContactChanged = z.object({
  accountDid: z.string(),
  channel: z.enum(["email", "phone"]),
  changed: z.literal(true),
  emailMasked: z.string().optional(),
  phoneMasked: z.string().optional(),
});
export const AccountContacts = z.object({
  accountDid: z.string(),
  email: z.string().nullable(),
  emailVerified: z.boolean(),
  phone: z.string().nullable(),
  phoneVerified: z.boolean(),
});
