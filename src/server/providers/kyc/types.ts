/**
 * What the KYC and KYB services need from an identity verification provider. One type, four
 * implementations (sandbox, Sumsub, Veriff, the EU digital identity wallet), chosen by KYC_PROVIDERS; the services never see a
 * provider's wire format. Identity documents stay at the provider: a review carries the decision,
 * labels, country and a hash of the identity attributes, plus the attributes themselves in memory
 * only (for sanctions screening at approval), never stored.
 */

/** Every provider this service knows, as KYC_PROVIDERS and POST /v1/kyc/start's `provider` name them. */
export const PROVIDER_NAMES = ["sandbox", "sumsub", "veriff", "eudi_wallet"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Our view of a review (docs/api/contract-decisions.md §3 KYC statuses, without `not_started`). */
export type ReviewStatus = "pending" | "in_review" | "approved" | "rejected" | "retry";

/** Identity attributes as the provider extracted them. Used in memory for screening; only hashed at rest. */
export type IdentityAttributes = {
  fullName?: string | null;
  /** YYYY-MM-DD */
  birthDate?: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string | null;
  /** E.164; a number the provider itself confirmed (a code the applicant entered), not one merely typed. */
  verifiedPhone?: string | null;
  /** ISO 3166-1 alpha-2, upper case: the nationality the document states, when it states one. */
  nationality?: string | null;
  /** The identity document the provider verified (issuing country alpha-2, type, number); hashed, never stored. */
  document?: { country: string; type: string; number: string } | null;
};

export type KycReview = {
  provider: ProviderName;
  /** The provider's applicant (Sumsub) or session (Veriff) id. */
  applicantId: string;
  /** Our person id (or organization id for KYB) as sent to the provider (externalUserId / vendorData). */
  externalId: string;
  status: ReviewStatus;
  /** Provider labels (reject labels, risk labels), upper-case strings such as "FORGERY", "PEP", "SANCTIONS". */
  labels: string[];
  /** The provider said the applicant matched a PEP list / a sanctions list. */
  pep: boolean;
  sanctions: boolean;
  country: string | null;
  identity: IdentityAttributes;
  /** Provider-side review time, ISO 8601, when given. */
  reviewedAt: string | null;
};

export type StartKycInput = {
  /** Our person id; sent as externalUserId / vendorData and echoed back in callbacks. */
  externalId: string;
  levelName: string;
  /** Where the hosted flow returns the applicant (already checked by the service). */
  redirectUrl?: string | null;
  /** Public origin of this deployment, for callback URLs and the sandbox page. */
  publicUrl: string;
};

export type StartedSession = {
  provider: ProviderName;
  applicantId: string;
  verificationUrl: string;
  /** Token for the provider's SDK (Sumsub access token, Veriff session token). */
  accessToken: string;
  expiresAt: Date;
};

export type StartKybInput = {
  /** Our organization id. */
  externalId: string;
  levelName: string;
  legalName: string;
  registrationNumber: string;
  /** ISO alpha-2 */
  country: string;
  address: { line1: string; line2?: string | null; city: string; postalCode?: string | null; country: string };
  publicUrl: string;
};

export type KybReview = {
  provider: ProviderName;
  applicantId: string;
  externalId: string;
  status: ReviewStatus;
  labels: string[];
};

export type StartedKyb = { provider: ProviderName; applicantId: string; verificationUrl: string | null; review: KybReview | null };

/** A provider callback whose signature verified. */
export type VerifiedCallback =
  | {
      kind: "kyc_review";
      /** The provider's event id (or a digest of the body when the provider has none): callbacks are idempotent on it. */
      eventId: string;
      review: KycReview;
    }
  | { kind: "kyb_review"; eventId: string; review: KybReview }
  /** A signed event we do not act on (applicantCreated, started…): answered 200, nothing written. */
  | { kind: "ignored"; eventId: string; type: string };

export type KycProvider = {
  name: ProviderName;
  /** Whether startKyb works here; withFailover(…, { kyb: true }) skips providers without it (Veriff). */
  supportsKyb: boolean;
  startKyc(input: StartKycInput): Promise<StartedSession>;
  /** The current review, pulled from the provider (GET /v1/kyc/status?refresh=1). */
  fetchReview(applicantId: string, externalId: string): Promise<KycReview>;
  startKyb(input: StartKybInput): Promise<StartedKyb>;
  /**
   * Checks the callback's signature over the exact raw bytes and parses it. Returns null when the
   * signature is missing or wrong (the route answers 401 and writes nothing); throws
   * ProviderError("permanent") only for a correctly signed body it cannot understand.
   */
  verifyCallback(rawBody: Buffer, headers: Headers): VerifiedCallback | null;
};

/**
 * A provider call that failed. `transient` (network, timeout, 429, 5xx) is retried with backoff
 * and then failed over; `permanent` (bad level name, credentials, plan: 4xx) is PROVIDER_FAILURE at
 * once, with no failover, so the same request always gets the same answer.
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: "transient" | "permanent",
    readonly provider: ProviderName,
    message: string,
    /** Seconds from the provider's Retry-After, when it named a window. */
    readonly retryAfterSec?: number,
    /** The provider's own error code or HTTP status (never its message text, which may echo personal data). */
    readonly providerCode?: string,
    /**
     * False when the call may already have taken effect at the provider and the provider cannot
     * tell a repeat from a new call (a session-creating POST whose answer was lost): repeating it
     * could create a second one, so that provider is not called again in this request.
     */
    readonly repeatable = true,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
