import type { KycStatus, Person } from "@/generated/prisma/client.ts";
import { hmacSha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { jcs } from "../../crypto/jcs";
import { sealForPerson } from "../../crypto/person-box";
import { sessionsWithReference } from "../../crypto/provider-reference";
import { deriveKey } from "../../crypto/secret-box";
import type { Db, Tx } from "../../db/client";
import { AppError, notFound, unauthorized } from "../../errors";
import { logger } from "../../log";
import { personDidOf } from "../../platform/account-ref";
import { verifiedPhoneHash } from "../../platform/contact-address";
import { isUuid } from "../../platform/ids";
import { isKycProviderConfigured, kycProvider, withProvider } from "../../providers/kyc";
import { type IdentityAttributes, type KybReview, type KycReview, ProviderError, type ProviderName } from "../../providers/kyc/types";
import { appendAudit } from "../audit";
import { ensureSandboxLists } from "../screening";
import { onKycReviewed } from "./approval";
import { applyKybReview } from "./kyb";

/**
 * The applicant id hash of contract's `screen-applicant`: an HMAC (keyed per deployment, so names
 * and birth dates cannot be guessed back from a dump) of the normalised identity attributes.
 *
 * The sandbox's test persons share invented identities (every `approved` applicant is Alex Example
 * Sample, born 1990-01-01), so a sandbox review passes the person's id as `sandboxPersonId` and it
 * is hashed too: each sandbox applicant has a hash of their own, and screening or denylisting one
 * never reaches another, while the identity screened stays the fixture lists' (docs/decisions.md,
 * "Sandbox test persons"). Real providers' reviews hash the identity alone, as before.
 */
export function applicantIdHash(identity: IdentityAttributes, sandboxPersonId?: string | null): string | null {
  if (!identity.fullName) return null;
  const name = identity.fullName.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();
  return hmacSha256Hex(
    deriveKey("applicant-id"),
    jcs({
      v: 1,
      name,
      birthDate: identity.birthDate ?? null,
      country: identity.country?.toUpperCase() ?? null,
      ...(sandboxPersonId ? { sandboxPerson: sandboxPersonId } : {}),
    }),
  );
}

/**
 * Whether a review may move a person from `current` to `next`. Approved and rejected are final;
 * a late "pending" or "in_review" (a redelivered older event) never undoes a later state.
 */
export function nextKycStatus(current: KycStatus, next: KycReview["status"]): KycStatus | null {
  if (current === "approved" || current === "rejected") return null;
  if (next === "approved" || next === "rejected" || next === "retry") return next;
  if (next === "in_review") return current === "in_review" ? null : "in_review";
  // "pending" carries no news (a sandbox refresh, an applicant who has not submitted): it never
  // undoes a retry; a resubmission shows up as in_review.
  return current === "not_started" ? "pending" : null;
}

const providerActor = (provider: ProviderName) => `system:kyc-provider:${provider}`;

/**
 * Applies one review to its person inside the caller's transaction: the session's review summary
 * (decision and labels, never documents), the person's status, country and applicant hash, the
 * audit entry, and on approval the `kyc.approved` event and screening. Returns the person after.
 */
export async function applyKycReview(tx: Tx, review: KycReview, actor?: string): Promise<Person | null> {
  if (!isUuid(review.externalId)) return null;
  // Lock the person so two deliveries of different events for one applicant apply in turn.
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM people WHERE id = ${review.externalId}::uuid FOR UPDATE`;
  if (!locked.length) return null;
  const person = (await tx.person.findUnique({ where: { id: review.externalId } }))!;
  // A review that arrives after the person was erased writes nothing back about them.
  if (person.erasedAt) return null;
  // The reference is sealed under the person's key: its keyed hash finds it (and a clear one written before, by value).
  const session = await tx.kycSession.findFirst({
    where: { personId: person.id, ...sessionsWithReference(review.provider, review.applicantId) },
    orderBy: { createdAt: "desc" },
  });
  // A review of an applicant this person was never sent to is not theirs.
  if (!session) return null;
  const summary = {
    status: review.status,
    labels: review.labels,
    pep: review.pep,
    sanctions: review.sanctions,
    reviewedAt: review.reviewedAt,
  };
  const target = nextKycStatus(person.kycStatus, review.status);
  await tx.kycSession.update({ where: { id: session.id }, data: { review: summary, ...(target ? { status: target } : {}) } });
  if (!target) return person;

  const country = (review.country ?? review.identity.country ?? person.country ?? null)?.toUpperCase() ?? null;
  const updated = await tx.person.update({
    where: { id: person.id },
    data: {
      kycStatus: target,
      kycProvider: review.provider,
      kycLevel: session.level,
      providerApplicantId: await sealForPerson(tx, person, review.applicantId),
      country,
      applicantIdHash:
        applicantIdHash({ ...review.identity, country }, review.provider === "sandbox" ? person.id : null) ?? person.applicantIdHash,
      ...(target === "approved" || target === "rejected"
        ? { reviewedAt: review.reviewedAt ? new Date(review.reviewedAt) : new Date() }
        : {}),
    },
  });
  const phoneRecorded =
    target === "approved" && review.identity.verifiedPhone ? await recordVerifiedPhone(tx, updated, review.identity.verifiedPhone) : false;
  const personDid = personDidOf(issuerDid(), person.id);
  await appendAudit(
    tx,
    { orgId: person.orgId, actor: actor ?? providerActor(review.provider) },
    {
      action: `kyc.${target}`,
      subjectType: "person",
      subject: personDid,
      data: {
        provider: review.provider,
        level: session.level,
        sessionId: session.id,
        labels: review.labels,
        country,
        // That the provider's confirmed phone was recorded, never the number itself.
        ...(phoneRecorded ? { verifiedPhoneRecorded: true } : {}),
        previousStatus: person.kycStatus,
      },
    },
  );
  await onKycReviewed(tx, updated, review, target === "approved");
  return (await tx.person.findUnique({ where: { id: person.id } }))!;
}

/**
 * A provider's callback: verified over the exact raw bytes (a bad signature is 401 and writes
 * nothing), then applied once per provider event id, in one transaction with its audit entry.
 */
export async function handleProviderCallback(db: Db, providerName: ProviderName, rawBody: Buffer, headers: Headers) {
  // A provider this deployment does not use has no callback endpoint (its secrets are unknown).
  if (!isKycProviderConfigured(providerName)) throw notFound("Callback endpoint");
  const provider = kycProvider(providerName);
  let callback: ReturnType<typeof provider.verifyCallback>;
  try {
    callback = provider.verifyCallback(rawBody, headers);
  } catch (err) {
    // Signed but unreadable: resending it will not help, so a 400 (not a 5xx the provider retries).
    if (err instanceof ProviderError) {
      throw new AppError("VALIDATION_ERROR", "The callback is signed but its body cannot be read.", {
        issues: [{ path: "body", message: "not a callback this service understands" }],
      });
    }
    throw err;
  }
  if (!callback) throw unauthorized("invalid_signature", "The callback signature does not verify.");
  if (callback.kind === "ignored") return { received: true as const, duplicate: false };
  // Load the sandbox's fixture lists (once) outside the review's transaction: the embedded
  // database cannot nest a transaction inside it.
  await ensureSandboxLists(db);
  const review = callback.kind === "kyc_review" ? await withIdentity(callback.review) : null;
  return db.$transaction(
    async (tx) => {
      const orgId =
        callback.kind === "kyc_review" ? await personOrg(tx, callback.review.externalId) : await orgOf(tx, callback.review.externalId);
      const fresh = await tx.providerEvent.createMany({
        data: [{ provider: providerName, eventId: callback.eventId, orgId, kind: callback.kind }],
        skipDuplicates: true,
      });
      if (fresh.count === 0) return { received: true as const, duplicate: true };
      if (!orgId) {
        logger().warn({ provider: providerName, kind: callback.kind }, "callback for an unknown subject ignored");
        return { received: true as const, duplicate: false };
      }
      if (review) await applyKycReview(tx, review);
      else await applyKybReview(tx, callback.review as KybReview);
      return { received: true as const, duplicate: false };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}

async function personOrg(tx: Tx, id: string) {
  if (!isUuid(id)) return null;
  return (await tx.person.findUnique({ where: { id }, select: { orgId: true } }))?.orgId ?? null;
}

async function orgOf(tx: Tx, id: string) {
  if (!isUuid(id)) return null;
  return (await tx.organization.findUnique({ where: { id }, select: { id: true } }))?.id ?? null;
}

/**
 * Some providers' review callbacks carry no identity attributes (Sumsub's `applicantReviewed`):
 * an approval then pulls the review once, so screening sees the verified name. If the pull
 * fails the approval still applies, screened on the provider's own flags only (logged).
 */
/**
 * The provider confirmed this number for an approved person: phone OTP confirm may then name them
 * (a soft signal only). A number already recorded for another person of the organization stays theirs.
 */
async function recordVerifiedPhone(tx: Tx, person: Person, phone: string): Promise<boolean> {
  const hash = verifiedPhoneHash(person.orgId, phone);
  if (person.verifiedPhoneHash === hash || person.verifiedPhone === phone) return false;
  // The number is sealed under the person's key; its keyed hash finds it (and a clear one written before, by value).
  const holder = await tx.person.findFirst({
    where: { orgId: person.orgId, OR: [{ verifiedPhoneHash: hash }, { verifiedPhone: phone }] },
    select: { id: true },
  });
  if (holder) return false;
  const sealed = await sealForPerson(tx, person, phone);
  if (!sealed) return false;
  await tx.person.update({ where: { id: person.id }, data: { verifiedPhone: sealed, verifiedPhoneHash: hash } });
  return true;
}

async function withIdentity(review: KycReview): Promise<KycReview> {
  if (review.status !== "approved" || review.identity.fullName) return review;
  try {
    const { value } = await withProvider(review.provider, "kyc.review", (p) => p.fetchReview(review.applicantId, review.externalId));
    return { ...review, identity: value.identity, country: review.country ?? value.country };
  } catch {
    logger().warn({ provider: review.provider }, "could not pull the approved review's identity; screening on provider flags only");
    return review;
  }
}
