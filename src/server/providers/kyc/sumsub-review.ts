import { createHash, createHmac } from "node:crypto";
import { parsePhoneNumberFromString } from "libphonenumber-js";
import { z } from "zod";
import { constantTimeEqual } from "../../crypto/hash";
import { toAlpha2 } from "./countries-alpha3";
import type { IdentityAttributes, KybReview, KycReview, ReviewStatus, VerifiedCallback } from "./types";
import { ProviderError } from "./types";

/**
 * Sumsub's applicant and webhook shapes mapped to our review. Only the fields we use are read;
 * everything else Sumsub sends is ignored, so additions on their side never break us.
 */
const ReviewResult = z
  .object({
    reviewAnswer: z.string().optional(),
    reviewRejectType: z.string().nullish(),
    rejectLabels: z.array(z.string()).nullish(),
  })
  .nullish();

const InfoFields = z.object({
  firstName: z.string().nullish(),
  firstNameEn: z.string().nullish(),
  middleName: z.string().nullish(),
  middleNameEn: z.string().nullish(),
  lastName: z.string().nullish(),
  lastNameEn: z.string().nullish(),
  dob: z.string().nullish(),
  country: z.string().nullish(),
  nationality: z.string().nullish(),
});
const Info = InfoFields.nullish();

/** One identity document Sumsub recognised (`info.idDocs[]`): its type, issuing country (alpha-3) and number. */
const IdDoc = z.object({ idDocType: z.string().nullish(), country: z.string().nullish(), number: z.string().nullish() });

export const SumsubApplicant = z.object({
  id: z.string().min(1),
  externalUserId: z.string().nullish(),
  type: z.string().nullish(),
  info: InfoFields.extend({ idDocs: z.array(IdDoc).nullish() }).nullish(),
  fixedInfo: Info,
  /** The number confirmed in the phone verification step (Sumsub keeps typed and extracted numbers elsewhere). */
  phone: z.string().nullish(),
  review: z
    .object({
      reviewStatus: z.string().nullish(),
      reviewDate: z.string().nullish(),
      reviewResult: ReviewResult,
    })
    .nullish(),
});
export type SumsubApplicant = z.output<typeof SumsubApplicant>;

const Webhook = z.object({
  type: z.string().min(1),
  applicantId: z.string().nullish(),
  externalUserId: z.string().nullish(),
  correlationId: z.string().nullish(),
  applicantType: z.string().nullish(),
  reviewStatus: z.string().nullish(),
  createdAtMs: z.string().nullish(),
  reviewResult: ReviewResult,
});

/**
 * Sumsub review status + result → ours. "init" means nothing submitted yet (pending); every other
 * non-final status (pending, queued, onHold, prechecked, awaiting…) means Sumsub is working on it.
 * A completed review is GREEN (approved), RED + RETRY (the applicant may resubmit) or RED + FINAL /
 * EXTERNAL (rejected for good).
 */
export function mapStatus(reviewStatus: string | null | undefined, result: z.output<typeof ReviewResult>): ReviewStatus {
  if (reviewStatus === "completed") {
    if (result?.reviewAnswer === "GREEN") return "approved";
    if (result?.reviewAnswer === "RED") return result.reviewRejectType === "RETRY" ? "retry" : "rejected";
    return "in_review";
  }
  if (!reviewStatus || reviewStatus === "init") return "pending";
  return "in_review";
}

const labelsOf = (result: z.output<typeof ReviewResult>) => [
  ...new Set((result?.rejectLabels ?? []).map((l) => l.trim().toUpperCase()).filter((l) => /^[A-Z0-9_]{1,64}$/.test(l))),
];

const clean = (s: string | null | undefined) => (s?.trim() ? s.trim() : null);

function identityOf(a: SumsubApplicant): IdentityAttributes {
  // `info` is what Sumsub extracted from the documents; `fixedInfo` what we (or the applicant) typed.
  const { idDocs, ...extracted } = a.info ?? {};
  const src = { ...a.fixedInfo, ...Object.fromEntries(Object.entries(extracted).filter(([, v]) => clean(v as string))) };
  const parts = [src.firstNameEn ?? src.firstName, src.middleNameEn ?? src.middleName, src.lastNameEn ?? src.lastName]
    .map(clean)
    .filter(Boolean);
  const dob = clean(src.dob);
  return {
    fullName: parts.length ? parts.join(" ") : null,
    birthDate: dob && /^\d{4}-\d{2}-\d{2}$/.test(dob) ? dob : null,
    country: toAlpha2(src.country) ?? toAlpha2(src.nationality),
    verifiedPhone: e164(a.phone),
    nationality: toAlpha2(src.nationality),
    document: documentOf(idDocs),
  };
}

/**
 * The identity document Sumsub verified: the first of `info.idDocs` with a number and an issuing
 * country (selfies and proofs of address carry neither).
 */
function documentOf(docs: z.output<typeof IdDoc>[] | null | undefined): IdentityAttributes["document"] {
  for (const d of docs ?? []) {
    const country = toAlpha2(d.country);
    const number = clean(d.number);
    if (country && number) return { country, type: clean(d.idDocType) ?? "OTHER", number };
  }
  return null;
}

/**
 * The provider's number in the E.164 form phone OTP stores (the same library reads both, so they
 * compare equal); a number without its country code, or not a valid one, is not used.
 */
function e164(phone: string | null | undefined): string | null {
  const parsed = phone ? parsePhoneNumberFromString(phone.trim()) : undefined;
  return parsed?.isValid() ? parsed.number : null;
}

/** Sumsub writes review dates as "2024-01-31 12:00:00" in UTC. */
function isoDate(s: string | null | undefined): string | null {
  if (!s) return null;
  const t = Date.parse(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/.test(s) ? `${s.replace(" ", "T")}Z` : s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export function reviewFromApplicant(a: SumsubApplicant, externalId: string): KycReview {
  const labels = labelsOf(a.review?.reviewResult);
  const identity = identityOf(a);
  return {
    provider: "sumsub",
    applicantId: a.id,
    externalId: a.externalUserId ?? externalId,
    status: mapStatus(a.review?.reviewStatus, a.review?.reviewResult),
    labels,
    pep: labels.includes("PEP"),
    sanctions: labels.includes("SANCTIONS"),
    country: identity.country ?? null,
    identity,
    reviewedAt: isoDate(a.review?.reviewDate),
  };
}

const ALGORITHMS: Record<string, string> = { HMAC_SHA1_HEX: "sha1", HMAC_SHA256_HEX: "sha256", HMAC_SHA512_HEX: "sha512" };

/**
 * The algorithm of a callback that names none. Sumsub's webhook schema calls SHA-1 the legacy
 * default: callbacks set up before X-Payload-Digest-Alg existed are signed with it and carry no
 * header, so a header-less SHA-256 digest is not one Sumsub made.
 */
const LEGACY_ALGORITHM = "HMAC_SHA1_HEX";

/** X-Payload-Digest: hex HMAC of the raw body with the webhook secret, the hash named by X-Payload-Digest-Alg. */
function payloadDigest(rawBody: Buffer, secret: string, alg: string): string | null {
  const hash = ALGORITHMS[alg];
  return hash ? createHmac(hash, secret).update(rawBody).digest("hex") : null;
}

const unreadableCallback = (why: string) =>
  new ProviderError("permanent", "sumsub", `sumsub callback ${why}`, undefined, "unreadable_callback");

/**
 * Verifies a Sumsub webhook over its exact bytes and maps it. applicantReviewed becomes a KYC or
 * KYB review (by applicantType); any other signed event is acknowledged and ignored. Sumsub's
 * webhooks carry no identity attributes: identity and country are empty until fetchReview.
 */
export function verifySumsubCallback(rawBody: Buffer, headers: Headers, webhookSecret: string): VerifiedCallback | null {
  const given = headers.get("x-payload-digest")?.trim().toLowerCase();
  const expected = payloadDigest(rawBody, webhookSecret, headers.get("x-payload-digest-alg")?.trim() || LEGACY_ALGORITHM);
  if (!given || !expected || !constantTimeEqual(given, expected)) return null;
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw unreadableCallback("is not JSON");
  }
  const parsed = Webhook.safeParse(json);
  if (!parsed.success) throw unreadableCallback("has an unknown shape");
  const w = parsed.data;
  const eventId = clean(w.correlationId) ?? createHash("sha256").update(rawBody).digest("hex");
  if (w.type !== "applicantReviewed") return { kind: "ignored", eventId, type: w.type.slice(0, 100) };
  if (!w.applicantId || !w.externalUserId) throw unreadableCallback("lacks applicantId or externalUserId");
  const labels = labelsOf(w.reviewResult);
  const status = mapStatus(w.reviewStatus ?? "completed", w.reviewResult);
  if (w.applicantType === "company") {
    const review: KybReview = { provider: "sumsub", applicantId: w.applicantId, externalId: w.externalUserId, status, labels };
    return { kind: "kyb_review", eventId, review };
  }
  const createdAt = w.createdAtMs ? isoDate(w.createdAtMs) : null;
  return {
    kind: "kyc_review",
    eventId,
    review: {
      provider: "sumsub",
      applicantId: w.applicantId,
      externalId: w.externalUserId,
      status,
      labels,
      pep: labels.includes("PEP"),
      sanctions: labels.includes("SANCTIONS"),
      country: null,
      identity: {},
      reviewedAt: createdAt,
    },
  };
}
