import { randomBytes } from "node:crypto";
import { z } from "zod";
import { constantTimeEqual, hmacSha256Hex } from "../../crypto/hash";
import { deriveKey } from "../../crypto/secret-box";
import type { IdentityAttributes, KycProvider, KycReview, ReviewStatus, VerifiedCallback } from "./types";
import { ProviderError } from "./types";

/**
 * The sandbox provider: nothing leaves the process. Its hosted page is ours (/identity/sandbox/…),
 * and the review comes back as a callback signed like a real provider's (HMAC-SHA256 over the raw
 * bytes, in X-Payload-Digest), so the service's callback path is exercised exactly as in production.
 */
export type SandboxOutcome = "approved" | "rejected" | "retry" | "pep" | "sanctions";

export const SANDBOX_SIGNATURE_HEADER = "x-payload-digest";
const SESSION_TTL_MS = 60 * 60 * 1000;
const CALLBACK_TYPE = "sandbox.applicantReviewed";

const ALEX: IdentityAttributes = { fullName: "Alex Example Sample", birthDate: "1990-01-01", country: "GH" };

/** Invented test persons; the pep and sanctions ones are on the fixture screening lists. */
export const SANDBOX_IDENTITIES: Record<SandboxOutcome, IdentityAttributes> = {
  approved: ALEX,
  rejected: ALEX,
  retry: ALEX,
  pep: { fullName: "Maria Fictitia Sandoval", birthDate: "1970-09-03", country: "ES" },
  sanctions: { fullName: "Ivan Testovich Petrenko", birthDate: "1961-04-12", country: "UA" },
};

/**
 * What each test document yields, following Sumsub: a forgery is a final RED (FORGERY), a bad photo
 * a RED RETRY, a sanctions hit a final RED labelled SANCTIONS. A PEP match is approved with the PEP
 * flag: being a PEP calls for enhanced due diligence (our AML case, severity high), not refusal.
 */
const OUTCOMES: Record<SandboxOutcome, { status: ReviewStatus; labels: string[]; pep: boolean; sanctions: boolean }> = {
  approved: { status: "approved", labels: [], pep: false, sanctions: false },
  rejected: { status: "rejected", labels: ["FORGERY"], pep: false, sanctions: false },
  retry: { status: "retry", labels: ["BAD_PHOTO"], pep: false, sanctions: false },
  pep: { status: "approved", labels: ["PEP"], pep: true, sanctions: false },
  sanctions: { status: "rejected", labels: ["SANCTIONS"], pep: false, sanctions: true },
};

const sandboxWebhookSecret = () => deriveKey("kyc-sandbox-webhook");
const sign = (raw: Buffer) => hmacSha256Hex(sandboxWebhookSecret(), raw);
/** The signature the sandbox puts on a body; exported so tests can sign bodies of their own shape. */
export const signSandboxBody = sign;
const randomId = (prefix: string) => `${prefix}${randomBytes(12).toString("hex")}`;

const Identity = z.object({
  fullName: z.string().max(300).nullish(),
  birthDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .nullish(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullish(),
  document: z
    .object({ country: z.string().regex(/^[A-Z]{2}$/), type: z.string().max(40), number: z.string().regex(/^[A-Z0-9]{5,20}$/) })
    .nullish(),
});
const CallbackBody = z.object({
  type: z.string().min(1).max(100),
  eventId: z.string().min(1).max(100),
  applicantId: z.string().min(1).max(100).optional(),
  externalId: z.string().min(1).max(100).optional(),
  outcome: z.enum(["approved", "rejected", "retry", "pep", "sanctions"]).optional(),
  identity: Identity.optional(),
  reviewedAt: z.string().optional(),
});

/**
 * A sandbox review as the sandbox "provider" would deliver it: the body and headers to POST to the
 * sandbox callback route. Used by the /identity page and POST /v1/sandbox/kyc/complete alike.
 */
export function sandboxCallback(input: {
  applicantId: string;
  externalId: string;
  outcome: SandboxOutcome;
  identity?: IdentityAttributes;
}): { rawBody: Buffer; headers: Headers } {
  const body = {
    type: CALLBACK_TYPE,
    eventId: randomId("sbxevt_"),
    applicantId: input.applicantId,
    externalId: input.externalId,
    outcome: input.outcome,
    identity: input.identity ?? SANDBOX_IDENTITIES[input.outcome],
    reviewedAt: new Date().toISOString(),
  };
  const rawBody = Buffer.from(JSON.stringify(body), "utf8");
  const headers = new Headers({
    "content-type": "application/json",
    [SANDBOX_SIGNATURE_HEADER]: sign(rawBody),
    "x-payload-digest-alg": "HMAC_SHA256_HEX",
  });
  return { rawBody, headers };
}

function reviewOf(body: z.output<typeof CallbackBody>): KycReview {
  const outcome = OUTCOMES[body.outcome!];
  const identity = { fullName: null, birthDate: null, country: null, ...body.identity };
  return {
    provider: "sandbox",
    applicantId: body.applicantId!,
    externalId: body.externalId!,
    status: outcome.status,
    labels: [...outcome.labels],
    pep: outcome.pep,
    sanctions: outcome.sanctions,
    country: identity.country ?? null,
    identity,
    reviewedAt: body.reviewedAt ?? null,
  };
}

/**
 * KYB in the sandbox decides at once from the registration number's last character:
 * "0" → rejected (label COMPANY_NOT_FOUND), "9" → in_review (stays there), anything else → approved.
 */
export function sandboxKybStatus(registrationNumber: string): { status: ReviewStatus; labels: string[] } {
  const last = registrationNumber.trim().slice(-1);
  if (last === "0") return { status: "rejected", labels: ["COMPANY_NOT_FOUND"] };
  if (last === "9") return { status: "in_review", labels: [] };
  return { status: "approved", labels: [] };
}

export function sandboxProvider(): KycProvider {
  return {
    name: "sandbox",
    supportsKyb: true,
    async startKyc(input) {
      const applicantId = randomId("sbx_");
      return {
        provider: "sandbox",
        applicantId,
        verificationUrl: `${input.publicUrl.replace(/\/+$/, "")}/identity/sandbox/${applicantId}`,
        accessToken: randomId("sbxat_"),
        expiresAt: new Date(Date.now() + SESSION_TTL_MS),
      };
    },
    /**
     * The sandbox keeps no state: the delivered review lives on the service's KycSession row, so a
     * refresh reports "pending" with no labels and the service keeps what it already has.
     */
    async fetchReview(applicantId, externalId) {
      return {
        provider: "sandbox",
        applicantId,
        externalId,
        status: "pending",
        labels: [],
        pep: false,
        sanctions: false,
        country: null,
        identity: {},
        reviewedAt: null,
      };
    },
    async startKyb(input) {
      const applicantId = randomId("sbx_");
      const decided = sandboxKybStatus(input.registrationNumber);
      return {
        provider: "sandbox",
        applicantId,
        verificationUrl: null,
        review: { provider: "sandbox", applicantId, externalId: input.externalId, ...decided },
      };
    },
    verifyCallback(rawBody, headers): VerifiedCallback | null {
      const given = headers.get(SANDBOX_SIGNATURE_HEADER)?.trim().toLowerCase();
      const alg = headers.get("x-payload-digest-alg") ?? "HMAC_SHA256_HEX";
      if (!given || alg !== "HMAC_SHA256_HEX" || !constantTimeEqual(given, sign(rawBody))) return null;
      let json: unknown;
      try {
        json = JSON.parse(rawBody.toString("utf8"));
      } catch {
        throw new ProviderError("permanent", "sandbox", "sandbox callback is not JSON", undefined, "unreadable_callback");
      }
      const body = CallbackBody.safeParse(json);
      if (!body.success)
        throw new ProviderError("permanent", "sandbox", "sandbox callback has an unknown shape", undefined, "unreadable_callback");
      if (body.data.type !== CALLBACK_TYPE) return { kind: "ignored", eventId: body.data.eventId, type: body.data.type };
      if (!body.data.applicantId || !body.data.externalId || !body.data.outcome)
        throw new ProviderError("permanent", "sandbox", "sandbox review callback lacks a field", undefined, "unreadable_callback");
      return { kind: "kyc_review", eventId: body.data.eventId, review: reviewOf(body.data) };
    },
  };
}
