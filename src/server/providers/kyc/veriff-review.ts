import { createHash } from "node:crypto";
import { z } from "zod";
import { constantTimeEqual, hmacSha256Hex } from "../../crypto/hash";
import { toAlpha2 } from "./countries-alpha3";
import type { IdentityAttributes, KycReview, ReviewStatus, VerifiedCallback } from "./types";
import { ProviderError } from "./types";

/**
 * Veriff's decision shape (decision webhook and GET /v1/sessions/{id}/decision) mapped to our
 * review. Only the fields we use are read.
 */
export const VeriffVerification = z.object({
  id: z.string().min(1),
  attemptId: z.string().nullish(),
  vendorData: z.string().nullish(),
  status: z.string().min(1),
  // Veriff's docs call it a string and integrations have seen numbers: either is read, neither refuses a decision.
  reasonCode: z.union([z.number(), z.string()]).nullish(),
  decisionTime: z.string().nullish(),
  person: z
    .object({
      firstName: z.string().nullish(),
      lastName: z.string().nullish(),
      fullName: z.string().nullish(),
      dateOfBirth: z.string().nullish(),
      nationality: z.string().nullish(),
    })
    .nullish(),
  document: z.object({ country: z.string().nullish(), number: z.string().nullish(), type: z.string().nullish() }).nullish(),
  riskLabels: z.array(z.object({ label: z.string(), category: z.string().nullish() })).nullish(),
});
export type VeriffVerification = z.output<typeof VeriffVerification>;

export const VeriffDecision = z.object({ status: z.string(), verification: VeriffVerification.nullish() });

/**
 * approved → approved; declined → rejected (final); resubmission_requested → retry; expired and
 * abandoned → retry too (the session ended without a verdict, so the person may simply start
 * again); review → in_review; started/submitted/created → in_review or pending.
 */
export function mapVeriffStatus(status: string): ReviewStatus {
  switch (status) {
    case "approved":
      return "approved";
    case "declined":
      return "rejected";
    case "resubmission_requested":
    case "expired":
    case "abandoned":
      return "retry";
    case "review":
    case "submitted":
      return "in_review";
    default:
      return "pending";
  }
}

// Veriff's documented decline reasons we name; any other code becomes VERIFF_REASON_<code>.
const REASONS: Record<string, string> = { 101: "PHYSICAL_DOCUMENT_NOT_USED", 102: "FORGERY", 103: "SELFIE_MISMATCH" };

/** The reason code as digits, whichever JSON type carried it; text that is no code gives no label. */
function reasonOf(code: VeriffVerification["reasonCode"]): string | null {
  const s = code === null || code === undefined ? "" : String(code).trim();
  return /^\d{1,9}$/.test(s) ? String(Number(s)) : null;
}

function labelsOf(v: VeriffVerification): string[] {
  const out: string[] = [];
  if (v.status === "expired" || v.status === "abandoned") out.push(v.status.toUpperCase());
  const reason = reasonOf(v.reasonCode);
  if (reason) out.push(REASONS[reason] ?? `VERIFF_REASON_${reason}`);
  for (const r of v.riskLabels ?? []) {
    const l = r.label
      .trim()
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, "_");
    if (l && l.length <= 64) out.push(l);
  }
  return [...new Set(out)];
}

function identityOf(v: VeriffVerification): IdentityAttributes {
  const p = v.person ?? {};
  const name =
    p.fullName?.trim() ||
    [p.firstName, p.lastName]
      .map((s) => s?.trim())
      .filter(Boolean)
      .join(" ");
  return {
    fullName: name || null,
    birthDate: p.dateOfBirth && /^\d{4}-\d{2}-\d{2}$/.test(p.dateOfBirth) ? p.dateOfBirth : null,
    country: toAlpha2(v.document?.country) ?? toAlpha2(p.nationality),
    nationality: toAlpha2(p.nationality),
    document: documentOf(v.document),
  };
}

/** The verified document as Veriff's decision names it (`document.number`, `.type`, `.country`), when it names all three. */
function documentOf(d: VeriffVerification["document"]): IdentityAttributes["document"] {
  const country = toAlpha2(d?.country);
  const number = d?.number?.trim();
  return country && number ? { country, type: d?.type?.trim() || "OTHER", number } : null;
}

export function reviewFromVerification(v: VeriffVerification, externalId: string): KycReview {
  const labels = labelsOf(v);
  const identity = identityOf(v);
  return {
    provider: "veriff",
    applicantId: v.id,
    externalId: v.vendorData ?? externalId,
    status: mapVeriffStatus(v.status),
    labels,
    // Veriff's PEP & sanctions screening reports through risk labels such as person_pep_match.
    pep: labels.some((l) => /(^|_)PEP(_|$)/.test(l)),
    sanctions: labels.some((l) => l.includes("SANCTION")),
    country: identity.country ?? null,
    identity,
    reviewedAt: v.decisionTime && !Number.isNaN(Date.parse(v.decisionTime)) ? new Date(v.decisionTime).toISOString() : null,
  };
}

const unreadableCallback = (why: string) =>
  new ProviderError("permanent", "veriff", `veriff callback ${why}`, undefined, "unreadable_callback");

/**
 * Verifies a Veriff webhook: X-HMAC-SIGNATURE (or vrf-hmac-signature) = hex HMAC-SHA256 of the raw
 * body with the shared secret, and X-AUTH-CLIENT, when sent, must be our API key. A decision
 * webhook becomes a review; event webhooks (started, submitted) are ignored. The event id is the
 * SHA-256 of the body: Veriff re-sends the same bytes, and a changed decision is a new event.
 */
export function verifyVeriffCallback(rawBody: Buffer, headers: Headers, sharedSecret: string, apiKey: string): VerifiedCallback | null {
  const given = (headers.get("x-hmac-signature") ?? headers.get("vrf-hmac-signature"))?.trim().toLowerCase();
  if (!given || !constantTimeEqual(given, hmacSha256Hex(sharedSecret, rawBody))) return null;
  const client = headers.get("x-auth-client") ?? headers.get("vrf-auth-client");
  if (client !== null && !constantTimeEqual(client.trim(), apiKey)) return null;
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw unreadableCallback("is not JSON");
  }
  const eventId = createHash("sha256").update(rawBody).digest("hex");
  const decision = VeriffDecision.safeParse(json);
  if (decision.success && decision.data.verification) {
    const v = decision.data.verification;
    if (!v.vendorData) throw unreadableCallback("lacks vendorData");
    return { kind: "kyc_review", eventId, review: reviewFromVerification(v, v.vendorData) };
  }
  const action = (json as { action?: unknown } | null)?.action;
  if (typeof action === "string" && action) return { kind: "ignored", eventId, type: action.slice(0, 100) };
  throw unreadableCallback("has an unknown shape");
}
