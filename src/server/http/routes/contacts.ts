import * as contacts from "../../services/contacts";
import {
  AccountContacts, ContactChallenge, ContactChallengeInput, ContactChanged, ContactChangeStarted, ContactEmailStartInput,
  ContactPhoneStartInput, EmailOtpStarted, EmailOtpStartInput, EmailProof, OtpConfirmInput, PhoneOtpStarted, PhoneOtpStartInput, PhoneProof,
} from "../../services/contacts";
import { AccountRef } from "../../services/accounts";
import { route } from "../route";

const write = { scope: "accounts_write" } as const;
const otpErrors = ["INVALID_CODE", "RATE_LIMITED", "PROVIDER_FAILURE", "PROVIDER_UNAVAILABLE"] as const;

export const contactRoutes = [
  route({
    method: "POST", path: "/v1/email/otp/start", auth: write, tag: "Contact",
    summary: "Sends a 6-digit code to an email address (devCode only in local development); 409 when the address is on an account.",
    body: EmailOtpStartInput, response: EmailOtpStarted, errors: ["CONFLICT", ...otpErrors],
    handler: ({ ctx, body }) => contacts.startEmailVerification(ctx, body),
  }),
  route({
    method: "POST", path: "/v1/email/otp/confirm", auth: write, tag: "Contact",
    summary: "Checks the code and returns a single-use emailProofToken valid 15 minutes.",
    body: OtpConfirmInput, response: EmailProof, errors: [...otpErrors],
    handler: ({ ctx, body }) => contacts.confirmEmailVerification(ctx, body),
  }),
  route({
    method: "POST", path: "/v1/phone/otp/start", auth: write, tag: "Contact",
    summary: "Sends a 6-digit code by SMS to an E.164 or local Ghana number; the code is never in the answer.",
    body: PhoneOtpStartInput, response: PhoneOtpStarted, errors: [...otpErrors],
    handler: ({ ctx, body }) => contacts.startPhoneVerification(ctx, body),
  }),
  route({
    method: "POST", path: "/v1/phone/otp/confirm", auth: write, tag: "Contact",
    summary: "Checks the code; returns a phoneProofToken and the person already known by this number, if any.",
    body: OtpConfirmInput, response: PhoneProof, errors: [...otpErrors],
    handler: ({ ctx, body }) => contacts.confirmPhoneVerification(ctx, body),
  }),
  route({
    method: "GET", path: "/v1/accounts/{did}/contact", auth: { scope: "read" }, tag: "Contact",
    summary: "The account's contacts, always masked (DID or bare chain name).",
    params: AccountRef, response: AccountContacts, errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => contacts.getContacts(ctx, params.did),
  }),
  route({
    method: "POST", path: "/v1/accounts/contact/challenge", auth: write, tag: "Contact",
    summary: "A single-use nonce and the text the account's key signs to authorise a contact change.",
    body: ContactChallengeInput, response: ContactChallenge, errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, body }) => contacts.contactChallenge(ctx, body),
  }),
  route({
    method: "POST", path: "/v1/accounts/contact/email/start", auth: write, tag: "Contact",
    summary: "Verifies the signature with the account's active key and sends a code to the new address.",
    body: ContactEmailStartInput, response: ContactChangeStarted, errors: ["INVALID_SIGNATURE", "NOT_FOUND", "CONFLICT", ...otpErrors],
    handler: ({ ctx, body }) => contacts.startContactChange(ctx, "email", { ...body, address: body.email }),
  }),
  route({
    method: "POST", path: "/v1/accounts/contact/email/confirm", auth: write, tag: "Contact",
    summary: "Checks the code, moves the account to the new address in one transaction and notifies the previous one.",
    body: OtpConfirmInput, response: ContactChanged, errors: ["CONFLICT", ...otpErrors],
    handler: ({ ctx, body }) => contacts.confirmContactChange(ctx, "email", body),
  }),
  route({
    method: "POST", path: "/v1/accounts/contact/phone/start", auth: write, tag: "Contact",
    summary: "Verifies the signature with the account's active key and sends a code to the new number.",
    body: ContactPhoneStartInput, response: ContactChangeStarted, errors: ["INVALID_SIGNATURE", "NOT_FOUND", "CONFLICT", ...otpErrors],
    handler: ({ ctx, body }) => contacts.startContactChange(ctx, "phone", { ...body, address: body.phone }),
  }),
  route({
    method: "POST", path: "/v1/accounts/contact/phone/confirm", auth: write, tag: "Contact",
    summary: "Checks the code and moves the account to the new number; the previous number is told.",
    body: OtpConfirmInput, response: ContactChanged, errors: ["CONFLICT", ...otpErrors],
    handler: ({ ctx, body }) => contacts.confirmContactChange(ctx, "phone", body),
  }),
];
