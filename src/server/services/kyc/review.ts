import { randomBytes, randomUUID } from "node:crypto";
import type { KycStatus, Person } from "@/generated/prisma/client.ts";
import { hmacSha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { jcs } from "../../crypto/jcs";
import { openKey, personKeyInsertSql, sealForPerson, sealWithKey } from "../../crypto/person-box";
import { providerReferenceHash, sessionsWithReference } from "../../crypto/provider-reference";
import { deriveKey } from "../../crypto/secret-box";
import { type Db, Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { AppError, notFound, unauthorized } from "../../errors";
import { logger } from "../../log";
import { personDidOf } from "../../platform/account-ref";
import { verifiedPhoneHash } from "../../platform/contact-address";
import { isUuid } from "../../platform/ids";
import { eventInsertSql } from "../../platform/outbox";
import { isKycProviderConfigured, kycProvider, withProvider } from "../../providers/kyc";
import { type IdentityAttributes, type KybReview, type KycReview, ProviderError, type ProviderName } from "../../providers/kyc/types";
import {
  composeEvidence,
  DEFAULT_SLA_HOURS,
  type EvidenceEntry,
  type EvidenceInput,
  evidenceMatches,
  evidenceSubjectText,
  OPEN_STATUSES,
  type OpenCaseRead,
  screeningHitWrites,
} from "../aml";
import { appendAudit, appendAuditGrouped, type GroupedWrite, lostToConcurrentWrite } from "../audit";
import { ensureSandboxLists, screeningSubjectUpsertSql, screenPersonForWrite } from "../screening";
import { onKycReviewed, reviewHit } from "./approval";
import { applyKybReview } from "./kyb";
import { type ApprovedOther, type FoundHash, type HumanTexts, humanHashLookups, humanTexts, planHuman } from "./unique-person";

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
 * nothing), then applied once per provider event id, with its audit entry in the same commit:
 * a KYC review by applyReviewOnce (one grouped statement), a KYB review in one transaction.
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
  if (callback.kind === "kyc_review") return applyReviewOnce(db, callback.eventId, await withIdentity(callback.review));
  const kyb = callback.review as KybReview;
  return inTransaction(db, { provider: providerName, eventId: callback.eventId, kind: callback.kind }, async (tx) => ({
    orgId: await orgOf(tx, kyb.externalId),
    apply: () => applyKybReview(tx, kyb),
  }));
}

type Received = { received: true; duplicate: boolean };
type ProviderEventKey = { provider: ProviderName; eventId: string; kind: string };

/** A callback applied in one transaction with its provider event row: a KYB review, or a KYC review raising a sanctions hit on a person holding bindings. */
function inTransaction(
  db: Db,
  event: ProviderEventKey,
  subject: (tx: Tx) => Promise<{ orgId: string | null; apply: () => Promise<unknown> }>,
): Promise<Received> {
  return db.$transaction(
    async (tx) => {
      const { orgId, apply } = await subject(tx);
      const fresh = await tx.providerEvent.createMany({
        data: [{ provider: event.provider, eventId: event.eventId, orgId, kind: event.kind }],
        skipDuplicates: true,
      });
      if (fresh.count === 0) return { received: true as const, duplicate: true };
      if (!orgId) {
        logger().warn({ provider: event.provider, kind: event.kind }, "callback for an unknown subject ignored");
        return { received: true as const, duplicate: false };
      }
      await apply();
      return { received: true as const, duplicate: false };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}

/** What a review needs, read in one statement (readForReview). */
type ReviewRead = {
  seen: boolean;
  personId: string | null;
  orgId: string | null;
  kycStatus: KycStatus | null;
  country: string | null;
  applicantIdHash: string | null;
  erasedAt: Date | null;
  verifiedPhoneHash: string | null;
  verifiedPhone: string | null;
  hasKey: boolean;
  keySealed: string | null;
  policy: string | null;
  sessionId: string | null;
  sessionLevel: string | null;
  found: FoundHash[];
  others: ApprovedOther[];
};

/**
 * Everything a review reads, in ONE statement: whether the provider event was seen, the person
 * with their data key and the organization's duplicate policy, their latest session of this
 * applicant, and for an approval the identity hashes already stored and the approved people of
 * the organization those name.
 */
async function readForReview(db: Db, eventId: string, review: KycReview, texts: HumanTexts | null): Promise<ReviewRead> {
  const [row] = await db.$queryRaw<ReviewRead[]>(reviewReadSql(eventId, review, texts));
  return row!;
}

/**
 * readForReview's statement. The approved people the stored hashes name are looked up from each
 * hash found, through the (orgId, humanId) and (orgId, nameBirthHumanId) indexes: written as a
 * filter of the organization's approved people, PostgreSQL read every approved person of the
 * organization whenever its statistics were older than them (7,937 rows at the end of a bench's
 * run, for none kept, a review's database CPU growing with them; docs/performance.md, "Product
 * paths side by side; PostgreSQL's ceiling"). The lookup is a LATERAL subquery behind OFFSET 0, so the planner can
 * neither start from the organization's people nor reach them through an index of approved people.
 */
export function reviewReadSql(eventId: string, review: KycReview, texts: HumanTexts | null): Prisma.Sql {
  const lookups = texts ? humanHashLookups(texts) : [];
  const keyIds = lookups.map((h) => h.keyId);
  const hashes = lookups.map((h) => h.hash);
  const personId = isUuid(review.externalId) ? review.externalId : null;
  const referenceHash = providerReferenceHash(review.provider, review.applicantId);
  return Prisma.sql`
    WITH found AS (
      SELECT h."keyId", h.hash, h."humanId" FROM identity_hashes h
      WHERE (h."keyId", h.hash) IN (SELECT * FROM unnest(${keyIds}::text[], ${hashes}::text[])))
    SELECT
      EXISTS (SELECT 1 FROM provider_events WHERE provider = ${review.provider} AND "eventId" = ${eventId}) AS seen,
      p.id::text AS "personId", p."orgId"::text AS "orgId", p."kycStatus"::text AS "kycStatus", p.country, p."applicantIdHash",
      p."erasedAt", p."verifiedPhoneHash", p."verifiedPhone",
      k."personId" IS NOT NULL AS "hasKey", k."keySealed", o."duplicatePersonPolicy" AS policy,
      s.id::text AS "sessionId", s.level AS "sessionLevel",
      (SELECT coalesce(json_agg(json_build_object('keyId', f."keyId", 'hash', f.hash, 'humanId', f."humanId")), '[]') FROM found f) AS found,
      (SELECT coalesce(json_agg(json_build_object('id', q.id, 'humanId', q."humanId", 'nameBirthHumanId', q."nameBirthHumanId")
                                ORDER BY q."createdAt", q.id), '[]')
         FROM (SELECT DISTINCT y.id, y."humanId", y."nameBirthHumanId", y."createdAt"
                 FROM found f
                 CROSS JOIN LATERAL (
                   SELECT x.id, x."humanId", x."nameBirthHumanId", x."createdAt", x."erasedAt", x."kycStatus"
                     FROM people x WHERE x."orgId" = p."orgId" AND x."humanId" = f."humanId"
                   UNION ALL
                   SELECT x.id, x."humanId", x."nameBirthHumanId", x."createdAt", x."erasedAt", x."kycStatus"
                     FROM people x WHERE x."orgId" = p."orgId" AND x."nameBirthHumanId" = f."humanId"
                   OFFSET 0) y
                WHERE y.id <> p.id AND y."erasedAt" IS NULL AND y."kycStatus" = 'approved') q) AS others
    FROM (SELECT 1) one
    LEFT JOIN people p ON p.id = ${personId}::uuid
    LEFT JOIN person_keys k ON k."personId" = p.id
    LEFT JOIN organizations o ON o.id = p."orgId"
    LEFT JOIN LATERAL (
      SELECT ks.id, ks.level FROM kyc_sessions ks
       WHERE ks."personId" = p.id AND ks.provider = ${review.provider}
         AND (ks."providerSessionIdHash" = ${referenceHash} OR ks."providerSessionId" = ${review.applicantId})
       ORDER BY ks."createdAt" DESC LIMIT 1) s ON true`;
}

/** The provider event's dedupe row alone (and the session's review, when given) in one statement; whether the event was new. */
async function recordEventOnly(
  db: Db,
  event: ProviderEventKey,
  orgId: string | null,
  session?: { id: string; personId: string; review: object },
): Promise<boolean> {
  const at = utcTimestamp(new Date());
  const sessionWrite = session
    ? Prisma.sql`, s AS (
        UPDATE kyc_sessions SET review = ${JSON.stringify(session.review)}::jsonb, "updatedAt" = ${at}
         WHERE id = ${session.id}::uuid AND EXISTS (SELECT 1 FROM ev)
           AND EXISTS (SELECT 1 FROM people WHERE id = ${session.personId}::uuid AND "erasedAt" IS NULL)
        RETURNING 1)`
    : Prisma.empty;
  const [row] = await db.$queryRaw<{ fresh: number }[]>`
    WITH ev AS (
      INSERT INTO provider_events (id, provider, "eventId", "orgId", kind, "receivedAt")
      VALUES (${randomUUID()}::uuid, ${event.provider}, ${event.eventId}, ${orgId}::uuid, ${event.kind}, ${at})
      ON CONFLICT DO NOTHING RETURNING 1)
    ${sessionWrite}
    SELECT (SELECT count(*) FROM ev)::int AS fresh`;
  return row!.fresh > 0;
}

/** Reads and writes again after a concurrent change, at most this many times in all. */
const REVIEW_TRIES = 5;

/**
 * A KYC review applied once per provider event id (docs/performance.md, "Product paths"): one
 * read of everything it needs, on approval screening's read of the lists, then ONE grouped
 * statement of the organization's group commit: the provider event row, the session's review,
 * the person (status, level, country, applicant hash, sealed reference, human ids and duplicate
 * finding), their data key if they had none, the identity hashes, the screening result and
 * subject, the events and the audit entries commit together or not at all.
 *
 * What the person's row lock gave before: the person's update is guarded on the status read, the
 * provider event row must be new, and the identity hash under the newest key must hold the human
 * id chosen. When another delivery (or approval) changed any of them, the statement writes
 * nothing and the review is read and applied again, after the other: a duplicate delivery then
 * answers duplicate, a later status follows nextKycStatus from the new one.
 *
 * A review that raises a screening hit (the lists, or the provider's own PEP or sanctions
 * finding) writes it in the same statement (screeningHitWrites): the person's flags and risk
 * score with the review's update of the person, guarded also by the row version read with their
 * open case, the case opened or escalated (under its own row version), the hit with its
 * evidence, the case's timeline, `aml.sanctions_hit` and its entry. A hit or case written
 * meanwhile (each writes the person's row) fails the statement, and the review is read again and
 * then escalates the case found, so a person never gets two open cases. Only a sanctions hit on a
 * person already holding bindings, whose suspension runs in a transaction, is applied by
 * applyKycReview in one.
 */
async function applyReviewOnce(db: Db, eventId: string, review: KycReview): Promise<Received> {
  const event = { provider: review.provider, eventId, kind: "kyc_review" };
  const sandboxId = review.provider === "sandbox" && isUuid(review.externalId) ? review.externalId : null;
  const texts = review.status === "approved" ? humanTexts(review.identity, sandboxId) : null;
  for (let attempt = 1; ; attempt++) {
    const read = await readForReview(db, eventId, review, texts);
    if (read.seen) return { received: true, duplicate: true };
    if (!read.personId || !read.orgId) {
      const fresh = await recordEventOnly(db, event, null);
      if (fresh) logger().warn({ provider: review.provider, kind: event.kind }, "callback for an unknown subject ignored");
      return { received: true, duplicate: !fresh };
    }
    // After erasure nothing is written back about the person; a review of an applicant this person was never sent to is not theirs.
    if (read.erasedAt || !read.sessionId) return { received: true, duplicate: !(await recordEventOnly(db, event, read.orgId)) };
    const target = nextKycStatus(read.kycStatus!, review.status);
    if (!target) {
      const session = { id: read.sessionId, personId: read.personId, review: reviewSummary(review) };
      return { received: true, duplicate: !(await recordEventOnly(db, event, read.orgId, session)) };
    }
    const planned = await planReview(db, eventId, read, review, target, texts);
    if (planned === "hit") return applyHitInTransaction(db, event, review);
    try {
      await appendAuditGrouped(db, read.orgId, planned);
      return { received: true, duplicate: false };
    } catch (err) {
      if (!lostToConcurrentWrite(err) || attempt >= REVIEW_TRIES) throw err;
    }
  }
}

/** The review's summary kept on its session: decision and labels, never documents. */
const reviewSummary = (review: KycReview) => ({
  status: review.status,
  labels: review.labels,
  pep: review.pep,
  sanctions: review.sanctions,
  reviewedAt: review.reviewedAt,
});

/** A review raising a sanctions hit on a person holding bindings: one transaction, the person locked, their bindings suspended with the case. */
function applyHitInTransaction(db: Db, event: ProviderEventKey, review: KycReview): Promise<Received> {
  return inTransaction(db, event, async (tx) => ({
    orgId: await personOrg(tx, review.externalId),
    apply: () => applyKycReview(tx, review),
  }));
}

/**
 * The grouped append of a review that moves the person to `target`, from what was read (the same
 * rows applyKycReview and onKycReviewed write, a hit's included); "hit" when a sanctions hit
 * would suspend bindings, which applyHitInTransaction applies instead.
 */
async function planReview(
  db: Db,
  eventId: string,
  read: ReviewRead,
  review: KycReview,
  target: KycStatus,
  texts: HumanTexts | null,
): Promise<Parameters<typeof appendAuditGrouped>[2] | "hit"> {
  const personId = read.personId!;
  const orgId = read.orgId!;
  const personDid = personDidOf(issuerDid(), personId);
  const approved = target === "approved";
  const country = (review.country ?? review.identity.country ?? read.country ?? null)?.toUpperCase() ?? null;
  const identity = {
    orgId,
    personId,
    name: review.identity.fullName ?? "",
    birthDate: review.identity.birthDate,
    country: review.identity.country ?? country,
  };
  const now = new Date();
  const at = utcTimestamp(now);

  // Screening's read (list versions and candidates, one statement) comes before the write.
  const screened = approved && identity.name ? await screenPersonForWrite(db, { ...identity, subjectRef: personDid }) : null;
  const raised = reviewHit(review, screened?.outcome ?? null, country);
  // What a hit needs besides: the person's row version, their open case, the SLA and the matched entries (one statement).
  const hitRead = raised ? await readForHit(db, orgId, personId, screened?.outcome ?? null) : null;
  // A sanctions hit suspends the person's credentials, which runs in a transaction (rare at a review: bindings follow approval).
  if (raised && (!hitRead || (raised.outcome.sanctions && hitRead.bindings > 0))) return "hit";

  // The person's data key: the one stored (none once destroyed), or a new one written with the review.
  const freshKey = read.hasKey ? null : randomBytes(32);
  const key = freshKey ?? (read.keySealed ? openKey(read.keySealed) : null);
  const seal = (value: string) => (key ? sealWithKey(key, personId, value) : null);
  const hit =
    raised && hitRead
      ? screeningHitWrites({
          orgId,
          personId,
          subjectDid: personDid,
          outcome: raised.outcome,
          actor: raised.actor,
          open: hitRead.open,
          sla: hitRead.sla ?? DEFAULT_SLA_HOURS,
          evidence: hitEvidence({ orgId, personId, personCountry: country, ...raised }, screened?.outcome ?? null, hitRead, seal),
          now,
        })
      : null;

  const phone = approved && key ? await phoneToRecord(db, read, review.identity.verifiedPhone) : null;
  const human = approved && texts ? planHuman({ id: personId, orgId }, texts, read.found, read.others, read.policy ?? "allow", now) : null;
  const reviewedAt = target === "approved" || target === "rejected" ? (review.reviewedAt ? new Date(review.reviewedAt) : now) : null;
  const applicantHash =
    applicantIdHash({ ...review.identity, country }, review.provider === "sandbox" ? personId : null) ?? read.applicantIdHash;
  const sets: Prisma.Sql[] = [
    Prisma.sql`"kycStatus" = ${target}::"KycStatus"`,
    Prisma.sql`"kycProvider" = ${review.provider}`,
    Prisma.sql`"kycLevel" = ${read.sessionLevel}`,
    Prisma.sql`"providerApplicantId" = ${seal(review.applicantId)}`,
    Prisma.sql`country = ${country}`,
    Prisma.sql`"applicantIdHash" = ${applicantHash}`,
    Prisma.sql`"updatedAt" = ${at}`,
    ...(reviewedAt ? [Prisma.sql`"reviewedAt" = ${utcTimestamp(reviewedAt)}`] : []),
    ...(human
      ? [
          Prisma.sql`"humanId" = ${human.set.humanId}::uuid`,
          Prisma.sql`"nameBirthHumanId" = ${human.set.nameBirthHumanId}::uuid`,
          Prisma.sql`"pairwiseId" = ${human.set.pairwiseId}`,
          Prisma.sql`"duplicateOf" = ${human.set.duplicateOf}`,
          Prisma.sql`"duplicatePersonIds" = ${human.set.duplicatePersonIds}::uuid[]`,
        ]
      : []),
    ...(phone ? [Prisma.sql`"verifiedPhone" = ${seal(phone.number)}`, Prisma.sql`"verifiedPhoneHash" = ${phone.hash}`] : []),
    ...(hit?.personSets ?? []),
  ];
  // With a hit, the person must also be the row version read with their open case: another hit or
  // case (each writes the person's row) makes this statement write nothing, and it is read again.
  const personVersion = hitRead ? Prisma.sql` AND xmin = ${hitRead.personVersion}::xid` : Prisma.empty;
  const subject = approved && screened ? screeningSubjectUpsertSql(identity, key, now) : null;
  // The provider event row, the person, their key and the session run before the chain head moves
  // (beforeHead), in the order a review applied in a transaction takes them (applyKycReview: the
  // event row, the person's row lock, the session, then the head), so the two wait for each
  // other instead of deadlocking.
  const writes: GroupedWrite[] = [
    // Once per provider event id: a concurrent delivery of the same event fails this statement, and the retry answers duplicate.
    {
      sql: Prisma.sql`INSERT INTO provider_events (id, provider, "eventId", "orgId", kind, "receivedAt")
        VALUES (${randomUUID()}::uuid, ${review.provider}, ${eventId}, ${orgId}::uuid, 'kyc_review', ${at})
        ON CONFLICT DO NOTHING`,
      rows: 1,
      beforeHead: true,
    },
    // Applied in turn: only from the status read, and never to an erased person.
    {
      sql: Prisma.sql`UPDATE people SET ${Prisma.join(sets, ", ")}
        WHERE id = ${personId}::uuid AND "kycStatus" = ${read.kycStatus}::"KycStatus" AND "erasedAt" IS NULL${personVersion}`,
      rows: 1,
      beforeHead: true,
    },
    ...(freshKey ? [{ sql: personKeyInsertSql({ id: personId, orgId }, freshKey), rows: 1, beforeHead: true }] : []),
    {
      sql: Prisma.sql`UPDATE kyc_sessions SET review = ${JSON.stringify(reviewSummary(review))}::jsonb, status = ${target}::"KycStatus", "updatedAt" = ${at}
        WHERE id = ${read.sessionId}::uuid`,
      rows: 1,
      beforeHead: true,
    },
    ...(human?.writes ?? []),
    ...(screened ? [{ sql: screened.insert, rows: 1 }] : []),
    ...(subject ? [{ sql: subject, rows: 1 }] : []),
    ...(approved ? [{ sql: eventInsertSql(orgId, "kyc.approved", { personDid, level: read.sessionLevel ?? "" }, now), rows: 1 }] : []),
    // The case (opened or escalated before the head moves, after the person and session), the hit, its timeline and event.
    ...(hit?.writes ?? []),
  ];
  return {
    actor: providerActor(review.provider),
    input: {
      action: `kyc.${target}`,
      subjectType: "person",
      subject: personDid,
      data: {
        provider: review.provider,
        level: read.sessionLevel,
        sessionId: read.sessionId,
        labels: review.labels,
        country,
        // That the provider's confirmed phone was recorded, never the number itself.
        ...(phone ? { verifiedPhoneRecorded: true } : {}),
        previousStatus: read.kycStatus,
      },
    },
    writes,
    // The review's entry, the human's, then the hit's: the order applyKycReview appends them in.
    also: [...(human?.audit ?? []), ...(hit ? [hit.entry] : [])],
  };
}

type ScreenOutcome = Awaited<ReturnType<typeof screenPersonForWrite>>["outcome"];

/** What a review raising a hit reads besides (readForHit). */
type HitRead = {
  personVersion: string;
  open: OpenCaseRead | null;
  sla: typeof DEFAULT_SLA_HOURS | null;
  bindings: number;
  entries: EvidenceEntry[];
  versions: { id: string; list: string; versionHash: string }[];
};

/**
 * What recordScreeningHit reads under the person's lock, in one statement: the person's row
 * version, their open case (with its row version), the organization's SLA hours, how many
 * bindings they hold, and the list entries and versions the screening matched (for the evidence).
 */
async function readForHit(db: Db, orgId: string, personId: string, screened: ScreenOutcome | null): Promise<HitRead | null> {
  const matches = screened ? evidenceMatches({ matches: screened.matches }) : null;
  const entryIds = matches?.entryIds ?? [];
  const versionIds = screened?.listVersions ?? [];
  const [row] = await db.$queryRaw<HitRead[]>`
    SELECT p.xmin::text AS "personVersion",
      (SELECT json_build_object('id', c.id, 'priority', c.priority, 'status', c.status,
                                'createdAtMs', extract(epoch FROM c."createdAt") * 1000, 'dueAtMs', extract(epoch FROM c."dueAt") * 1000,
                                'version', c.xmin::text)
         FROM aml_cases c WHERE c."orgId" = ${orgId}::uuid AND c."personId" = p.id AND c.status::text = ANY(${[...OPEN_STATUSES]}::text[])
        ORDER BY c."createdAt" LIMIT 1) AS open,
      (SELECT json_build_object('critical', s."criticalHours", 'high', s."highHours", 'medium', s."mediumHours", 'low', s."lowHours")
         FROM aml_sla_settings s WHERE s."orgId" = ${orgId}::uuid) AS sla,
      (SELECT count(*)::int FROM account_bindings b WHERE b."orgId" = ${orgId}::uuid AND b."personId" = p.id AND b.status <> 'revoked') AS bindings,
      (SELECT coalesce(json_agg(json_build_object('id', e.id, 'externalId', e."externalId", 'name', e.name, 'aliases', e.aliases,
                                                  'normalizedNames', e."normalizedNames", 'birthDates', e."birthDates", 'countries', e.countries,
                                                  'topics', e.topics, 'programme', e.programme)), '[]')
         FROM screening_entries e WHERE e.id = ANY(${entryIds}::uuid[])) AS entries,
      (SELECT coalesce(json_agg(json_build_object('id', v.id, 'list', v.list, 'versionHash', v."versionHash")), '[]')
         FROM screening_list_versions v WHERE v.id = ANY(${versionIds}::uuid[])) AS versions
    FROM people p WHERE p.id = ${personId}::uuid AND p."orgId" = ${orgId}::uuid`;
  if (!row) return null;
  const open = row.open
    ? { ...row.open, createdAtMs: Number(row.open.createdAtMs), dueAtMs: row.open.dueAtMs === null ? null : Number(row.open.dueAtMs) }
    : null;
  return { ...row, open };
}

/** The hit's evidence, as buildEvidence makes it, from the screening's outcome (the result is written by the same statement) and what readForHit read. */
function hitEvidence(input: EvidenceInput, screened: ScreenOutcome | null, read: HitRead, seal: (text: string) => string | null) {
  const detail = screened ? { listVersions: read.versions, matches: screened.matches } : {};
  const text = evidenceSubjectText(input);
  return composeEvidence(input, detail, read.entries, text ? seal(text) : null);
}

/**
 * recordVerifiedPhone's decision, read before the write: the provider confirmed this number for an
 * approved person, and no person of the organization holds it yet (the unique hash keeps it so
 * against a concurrent one: the statement then fails and is read again).
 */
async function phoneToRecord(db: Db, read: ReviewRead, phone: string | null | undefined) {
  if (!phone) return null;
  const hash = verifiedPhoneHash(read.orgId!, phone);
  if (read.verifiedPhoneHash === hash || read.verifiedPhone === phone) return null;
  const holder = await db.person.findFirst({
    where: { orgId: read.orgId!, OR: [{ verifiedPhoneHash: hash }, { verifiedPhone: phone }] },
    select: { id: true },
  });
  return holder ? null : { number: phone, hash };
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
