import type { Organization, Person, PersonErasure } from "@/generated/prisma/client.ts";
import { type Actor, actorId, type ServiceContext } from "../../context";
import { openContacts } from "../../crypto/account-box";
import { issuerDid } from "../../crypto/issuer-keys";
import { destroyPersonKey, openPersonal } from "../../crypto/person-box";
import type { Db, Tx } from "../../db/client";
import { readAll } from "../../db/tx";
import { AppError, conflict, notFound } from "../../errors";
import { personDidOf, personIdOfRef } from "../../platform/account-ref";
import { OPEN_STATUSES } from "../../platform/aml-case-status";
import { attestationChanged } from "../../platform/attestation-sync";
import { contactHash } from "../../platform/contact-address";
import { emitEvent } from "../../platform/outbox";
import { appendAudit } from "../audit";
import { applyComplianceStatus, setStatusBit } from "../credential-status";

/**
 * Erasure of one person (docs/data-protection.md, "Erasure"). Everything personal kept about them
 * is blanked or deleted in one transaction, their data key is destroyed (so whatever it sealed
 * can never be opened again), their bindings are revoked (the status lists say so), one tombstone
 * audit entry is appended and `person.erased` is sent. What stays is what keeps the audit chain
 * and the statistics true: ids, statuses, dates, counts, and the chain itself, which never held
 * personal values in clear.
 *
 * An open AML case, or the AML retention period after the relationship ended, holds the erasure:
 * the request is recorded (the person's bindings are revoked at once, which ends the
 * relationship) and the worker carries it out when the hold ends, unless it is withdrawn.
 */

export const ERASED_REASON = "person_erased";

const DAY_MS = 86_400_000;

export type ErasureOutcome = {
  personDid: string;
  status: "erased";
  requestedAt: string;
  erasedAt: string;
  bindingsRevoked: number;
  accountsCleared: number;
  casesRedacted: number;
};

export type Holds = { heldBy: ("open_case" | "aml_retention")[]; erasableFrom: Date | null };

type Subject = { person: Person; did: string };

async function lockSubject(tx: Tx, orgId: string, personDid: string): Promise<Subject> {
  const id = personIdOfRef(issuerDid(), personDid);
  if (!id) throw notFound("Person");
  await tx.$queryRaw`SELECT id FROM people WHERE id = ${id}::uuid AND "orgId" = ${orgId}::uuid FOR UPDATE`;
  const person = await tx.person.findFirst({ where: { id, orgId } });
  if (!person) throw notFound("Person");
  return { person, did: personDidOf(issuerDid(), person.id) };
}

const caseWhere = (s: Subject) => ({ orgId: s.person.orgId, OR: [{ personId: s.person.id }, { subjectDid: s.did }] });

/**
 * What holds the erasure at `at`: an AML case still open, and the retention period. The
 * relationship is the person's approved KYC, bindings and cases; it ended at the latest of the
 * KYC review, the last binding's revocation and the last case's closing, and its records are
 * kept `amlRetentionDays` after that. A person never approved, never bound and never in a case
 * had no relationship: nothing is kept.
 */
export async function erasureHolds(tx: Tx, org: Pick<Organization, "amlRetentionDays">, s: Subject, at: Date): Promise<Holds> {
  const [open, cases, bindings] = await readAll(tx, [
    () => tx.amlCase.count({ where: { ...caseWhere(s), status: { in: [...OPEN_STATUSES] } } }),
    () => tx.amlCase.aggregate({ where: caseWhere(s), _max: { closedAt: true }, _count: true }),
    () => tx.accountBinding.aggregate({ where: { personId: s.person.id }, _max: { revokedAt: true }, _count: true }),
  ]);
  const heldBy: Holds["heldBy"] = open ? ["open_case"] : [];
  const related = s.person.kycStatus === "approved" || bindings._count > 0 || cases._count > 0;
  if (!related) return { heldBy, erasableFrom: null };
  const ends = [s.person.reviewedAt, bindings._max.revokedAt, cases._max.closedAt].filter((d): d is Date => !!d);
  const end = ends.length ? new Date(Math.max(...ends.map((d) => d.getTime()))) : at;
  const erasableFrom = new Date(end.getTime() + org.amlRetentionDays * DAY_MS);
  if (erasableFrom > at) heldBy.push("aml_retention");
  return { heldBy, erasableFrom: heldBy.includes("aml_retention") ? erasableFrom : null };
}

const heldError = (holds: Holds) =>
  conflict(
    "erasure_held",
    holds.heldBy.includes("aml_retention")
      ? `The person's AML records must be kept until ${holds.erasableFrom!.toISOString()}; the erasure is scheduled for then.`
      : "The person has an open AML case; the erasure is scheduled for when it is closed.",
    { erasableFrom: holds.erasableFrom?.toISOString() ?? null, heldBy: holds.heldBy, scheduled: true },
  );

/**
 * POST /v1/people/{personDid}/erase. Answers what was done (the same answer again for a person
 * already erased); a held request is recorded and answered 409 `erasure_held` with the date from
 * which it can be carried out, after its transaction commits.
 */
export async function requestErasure(ctx: ServiceContext, personDid: string): Promise<ErasureOutcome> {
  const result = await ctx.db.$transaction(
    async (tx) => {
      const s = await lockSubject(tx, ctx.org.id, personDid);
      const prior = await tx.personErasure.findUnique({ where: { personId: s.person.id } });
      if (s.person.erasedAt) return { done: prior!.outcome as ErasureOutcome };
      const at = ctx.now();
      const by = actorId(ctx.actor);
      // The request ends the relationship: the person's bindings are revoked now, held or not.
      await applyComplianceStatus(tx, {
        orgId: ctx.org.id,
        personId: s.person.id,
        change: "revoke",
        reason: ERASED_REASON,
        actor: ctx.actor,
        at,
      });
      const holds = await erasureHolds(tx, ctx.org, s, at);
      const requestedAt = prior?.status === "scheduled" ? prior.requestedAt : at;
      if (holds.heldBy.length) {
        await tx.personErasure.upsert({
          where: { personId: s.person.id },
          create: {
            orgId: ctx.org.id,
            personId: s.person.id,
            requestedAt,
            requestedBy: by,
            erasableFrom: holds.erasableFrom,
            heldBy: holds.heldBy,
          },
          update: {
            status: "scheduled",
            requestedAt,
            requestedBy: by,
            erasableFrom: holds.erasableFrom,
            heldBy: holds.heldBy,
            completedAt: null,
          },
        });
        if (prior?.status !== "scheduled")
          await appendAudit(
            tx,
            { orgId: ctx.org.id, actor: ctx.actor },
            {
              action: "person.erasure_scheduled",
              subjectType: "person",
              subject: s.did,
              data: { erasableFrom: holds.erasableFrom?.toISOString() ?? null, heldBy: holds.heldBy },
            },
          );
        return { held: holds };
      }
      return { done: await carryOut(tx, s, { requestedAt, requestedBy: by, at, actor: ctx.actor }) };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
  if (result.held) throw heldError(result.held);
  return result.done!;
}

/** GET /v1/people/{personDid}/erase: the person's erasure request as it stands. */
export async function getErasure(ctx: ServiceContext, personDid: string) {
  const id = personIdOfRef(issuerDid(), personDid);
  const person = id ? await ctx.db.person.findFirst({ where: { id, orgId: ctx.org.id }, include: { erasure: true } }) : null;
  if (!person) throw notFound("Person");
  if (!person.erasure) throw new AppError("NOT_FOUND", "No erasure was requested for this person.");
  return erasureView(personDidOf(issuerDid(), person.id), person.erasure);
}

export function erasureView(personDid: string, e: PersonErasure) {
  return {
    personDid,
    status: e.status,
    requestedAt: e.requestedAt.toISOString(),
    erasableFrom: e.erasableFrom?.toISOString() ?? null,
    heldBy: e.heldBy,
    erasedAt: e.completedAt?.toISOString() ?? null,
  };
}

/** DELETE /v1/people/{personDid}/erase: withdraws a scheduled erasure (revoked bindings stay revoked). */
export async function withdrawErasure(ctx: ServiceContext, personDid: string) {
  return ctx.db.$transaction(async (tx) => {
    const s = await lockSubject(tx, ctx.org.id, personDid);
    const e = await tx.personErasure.findUnique({ where: { personId: s.person.id } });
    if (!e || e.status === "withdrawn") throw new AppError("NOT_FOUND", "No scheduled erasure for this person.");
    if (e.status === "completed") throw conflict("already_erased", "The person is already erased; an erasure cannot be undone.");
    const withdrawn = await tx.personErasure.update({ where: { id: e.id }, data: { status: "withdrawn" } });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      { action: "person.erasure_withdrawn", subjectType: "person", subject: s.did },
    );
    return erasureView(s.did, withdrawn);
  });
}

/** Every account the person is linked to: bound, offered in a bind session, or verified for. */
async function linkedAccounts(tx: Tx, s: Subject) {
  type Linked = {
    id: string;
    did: string;
    email: string | null;
    emailHash: string | null;
    phone: string | null;
    phoneHash: string | null;
    dataKeySealed: string | null;
  };
  return tx.$queryRaw<Linked[]>`
    SELECT a.id::text AS id, a.did, a.email, a."emailHash", a.phone, a."phoneHash", a."dataKeySealed" FROM accounts a
    WHERE a."orgId" = ${s.person.orgId}::uuid AND a.id IN (
      SELECT "accountId" FROM account_bindings WHERE "personId" = ${s.person.id}::uuid
      UNION SELECT "accountId" FROM bind_sessions WHERE "personId" = ${s.person.id}::uuid
      UNION SELECT "accountId" FROM kyc_sessions WHERE "personId" = ${s.person.id}::uuid AND "accountId" IS NOT NULL)`;
}

/** The erasure itself, in the caller's transaction, with the person's row locked. */
async function carryOut(
  tx: Tx,
  s: Subject,
  req: { requestedAt: Date; requestedBy: string; at: Date; actor: Actor | string },
): Promise<ErasureOutcome> {
  const { person, did } = s;
  const orgId = person.orgId;
  const at = req.at;
  await applyComplianceStatus(tx, { orgId, personId: person.id, change: "revoke", reason: ERASED_REASON, actor: req.actor, at });
  // Revoked by this erasure: now, or when it was requested and held.
  const revoked = await tx.accountBinding.count({ where: { personId: person.id, revocationReason: ERASED_REASON } });
  const bindings = await tx.accountBinding.findMany({ where: { personId: person.id }, select: { id: true } });
  for (const b of bindings) await setStatusBit(tx, b.id, "suspension", false, at);
  // Reasons written by people may name the person; the revocation itself stays.
  await tx.accountBinding.updateMany({ where: { personId: person.id }, data: { revocationReason: ERASED_REASON, suspendedFor: [] } });

  const accounts = await linkedAccounts(tx, s);
  const accountIds = accounts.map((a) => a.id);
  // Their on-chain attestations go (a revoked row would still carry the pairwise id).
  await attestationChanged(tx, orgId, accountIds, at);
  // The verified phone and the accounts' contacts are sealed under keys destroyed below: opened
  // first, to find their codes and messages. Codes are found by the contacts' keyed hash (a code
  // written before addresses were sealed, by value).
  const keySealed = (await tx.personKey.findUnique({ where: { personId: person.id }, select: { keySealed: true } }))?.keySealed;
  const verifiedPhone = person.verifiedPhone && openPersonal(person.verifiedPhone, keySealed);
  const contacts = accounts.map(openContacts);
  const emails = contacts.map((c) => c.email).filter((x): x is string => !!x);
  const phones = [...contacts.map((c) => c.phone), verifiedPhone].filter((x): x is string => !!x);
  const addresses = [...new Set([...emails, ...phones])];
  const hashes = [
    ...new Set([
      ...accounts.flatMap((a) => [a.emailHash, a.phoneHash]).filter((x): x is string => !!x),
      ...emails.map((e) => contactHash(orgId, "email", e)),
      ...phones.map((p) => contactHash(orgId, "phone", p)),
    ]),
  ];
  const byAddress = [{ addressHash: { in: hashes } }, { address: { in: addresses } }];
  await tx.otpChallenge.deleteMany({ where: { orgId, OR: [...byAddress, { accountId: { in: accountIds } }] } });
  await tx.proofToken.deleteMany({ where: { orgId, OR: byAddress } });
  await tx.devOutboxMessage.deleteMany({ where: { to: { in: addresses } } });
  // The contacts go with the account's data key: a copy of them anywhere no longer opens.
  await tx.account.updateMany({
    where: { id: { in: accountIds } },
    data: {
      email: null,
      emailHash: null,
      phone: null,
      phoneHash: null,
      dataKeySealed: null,
      deviceFingerprintHash: null,
      passkeyCredentialId: null,
    },
  });

  const subjectRefs = [did, person.id, ...(person.applicantIdHash ? [person.applicantIdHash] : [])];
  await tx.screeningResult.updateMany({ where: { orgId, subjectRef: { in: subjectRefs } }, data: { detail: {} } });
  await tx.screeningSubject.deleteMany({ where: { personId: person.id } });
  await tx.riskEvent.updateMany({
    where: { orgId, subjectRef: { in: [did, ...accounts.map((a) => a.did)] } },
    data: { deviceFingerprintHash: null, clientIpHash: null, clientIp: null, detail: {} },
  });

  const cases = await tx.amlCase.findMany({ where: caseWhere(s), select: { id: true } });
  const caseIds = cases.map((c) => c.id);
  // What officers wrote about the person is sealed under their key (services/aml/case-text.ts):
  // the key's destruction below leaves it unreadable ("[erased]"). What is still in clear (written
  // before sealing and not yet migrated, or the service's own words) is blanked; of the timeline's
  // data only the sealed texts and the comment ids stay, and the evidence goes.
  const sealed = { startsWith: `p1.${person.id}.` };
  const inCases = { in: caseIds };
  await tx.amlCase.updateMany({ where: { id: inCases, NOT: { reason: sealed } }, data: { reason: "erased" } });
  for (const column of ["proposeReason", "approveNotes", "confirmReason"] as const)
    await tx.amlCase.updateMany({ where: { id: inCases, NOT: { [column]: sealed } }, data: { [column]: null } });
  await tx.$executeRaw`
    UPDATE aml_case_events SET data = jsonb_strip_nulls(jsonb_build_object(
      'reason', CASE WHEN data->>'reason' LIKE ${`${sealed.startsWith}%`} THEN data->'reason' END,
      'notes', CASE WHEN data->>'notes' LIKE ${`${sealed.startsWith}%`} THEN data->'notes' END,
      'commentId', data->'commentId'))
    WHERE "caseId" = ANY(${caseIds}::uuid[])`;
  await tx.amlCaseComment.updateMany({ where: { caseId: inCases, NOT: { body: sealed } }, data: { body: "" } });
  await tx.amlCaseHit.updateMany({ where: { caseId: inCases }, data: { evidence: {}, searchText: null } });

  await tx.kycSession.updateMany({
    where: { personId: person.id },
    data: { providerSessionId: null, providerSessionIdHash: null, verificationUrl: "", redirectUrl: null, clientIp: null, review: {} },
  });
  await tx.kycCreateToken.deleteMany({ where: { personId: person.id } });
  await tx.bindSession.updateMany({ where: { personId: person.id }, data: { redirectUrl: null } });
  await destroyPersonKey(tx, person, at);
  await tx.person.update({
    where: { id: person.id },
    data: {
      country: null,
      providerApplicantId: null,
      applicantIdHash: null,
      verifiedPhone: null,
      verifiedPhoneHash: null,
      humanId: null,
      nameBirthHumanId: null,
      pairwiseId: null,
      duplicateOf: null,
      duplicatePersonIds: [],
      erasedAt: at,
    },
  });
  // The identity hashes that named only this person go; claims keep their nullifiers, which name nobody.
  const humans = [person.humanId, person.nameBirthHumanId].filter((h): h is string => !!h);
  if (humans.length)
    await tx.$executeRaw`
      DELETE FROM identity_hashes h WHERE h."humanId" = ANY(${humans}::uuid[])
        AND NOT EXISTS (SELECT 1 FROM people p WHERE p."humanId" = h."humanId" OR p."nameBirthHumanId" = h."humanId")`;

  const outcome: ErasureOutcome = {
    personDid: did,
    status: "erased",
    requestedAt: req.requestedAt.toISOString(),
    erasedAt: at.toISOString(),
    bindingsRevoked: revoked,
    accountsCleared: accountIds.length,
    casesRedacted: caseIds.length,
  };
  await tx.personErasure.upsert({
    where: { personId: person.id },
    create: {
      orgId,
      personId: person.id,
      status: "completed",
      requestedAt: req.requestedAt,
      requestedBy: req.requestedBy,
      completedAt: at,
      outcome,
    },
    update: { status: "completed", completedAt: at, heldBy: [], erasableFrom: null, outcome },
  });
  await appendAudit(
    tx,
    { orgId, actor: req.actor },
    {
      action: "person.erased",
      subjectType: "person",
      subject: did,
      data: {
        requestedAt: outcome.requestedAt,
        requestedBy: req.requestedBy,
        bindingsRevoked: outcome.bindingsRevoked,
        accountsCleared: outcome.accountsCleared,
        casesRedacted: outcome.casesRedacted,
      },
    },
  );
  await emitEvent(tx, orgId, "person.erased", { personDid: did, erasedAt: outcome.erasedAt });
  return outcome;
}

/**
 * The worker's part: carries out every scheduled erasure whose hold has ended by `now` (the
 * retention date passed, no case left open), and moves the date of one still held. Each in its
 * own transaction, claimed with SKIP LOCKED so several workers never take the same one.
 */
export async function runDueErasures(db: Db, now: Date = new Date(), limit = 200): Promise<{ erased: number; stillHeld: number }> {
  const due = await db.personErasure.findMany({
    where: { status: "scheduled", OR: [{ erasableFrom: null }, { erasableFrom: { lte: now } }] },
    orderBy: [{ erasableFrom: "asc" }, { id: "asc" }],
    take: limit,
    select: { id: true },
  });
  let erased = 0;
  let stillHeld = 0;
  for (const { id } of due) {
    const done = await db.$transaction(
      async (tx) => {
        const [claimed] = await tx.$queryRaw<{ personId: string; orgId: string }[]>`
          SELECT "personId"::text AS "personId", "orgId"::text AS "orgId" FROM person_erasures
          WHERE id = ${id}::uuid AND status = 'scheduled' FOR UPDATE SKIP LOCKED`;
        if (!claimed) return null;
        const org = await tx.organization.findUniqueOrThrow({ where: { id: claimed.orgId } });
        const s = await lockSubject(tx, claimed.orgId, claimed.personId);
        const e = (await tx.personErasure.findUnique({ where: { id } }))!;
        const holds = await erasureHolds(tx, org, s, now);
        if (holds.heldBy.length) {
          await tx.personErasure.update({ where: { id }, data: { erasableFrom: holds.erasableFrom, heldBy: holds.heldBy } });
          return "held" as const;
        }
        await carryOut(tx, s, { requestedAt: e.requestedAt, requestedBy: e.requestedBy, at: now, actor: "system:erasure" });
        return "erased" as const;
      },
      { timeout: 30_000, maxWait: 10_000 },
    );
    if (done === "erased") erased++;
    else if (done === "held") stillHeld++;
  }
  return { erased, stillHeld };
}

/**
 * After a restore from a backup taken before some erasures (docs/data-protection.md,
 * "Operators"): erases again each person named, whatever holds it now, since the decision was
 * taken and carried out before the restore. People not found (created after the backup) and
 * people already erased are reported and left alone.
 */
export async function replayErasures(db: Db, personDids: string[], now: Date = new Date()) {
  const results: { personDid: string; result: "erased" | "already_erased" | "not_found" }[] = [];
  for (const personDid of personDids) {
    const id = personIdOfRef(issuerDid(), personDid);
    const person = id ? await db.person.findUnique({ where: { id }, select: { orgId: true } }) : null;
    if (!person) {
      results.push({ personDid, result: "not_found" });
      continue;
    }
    const result = await db.$transaction(
      async (tx) => {
        const s = await lockSubject(tx, person.orgId, id!);
        if (s.person.erasedAt) return "already_erased" as const;
        const prior = await tx.personErasure.findUnique({ where: { personId: s.person.id } });
        await carryOut(tx, s, {
          requestedAt: prior?.requestedAt ?? now,
          requestedBy: prior?.requestedBy ?? "system:erasure-replay",
          at: now,
          actor: "system:erasure-replay",
        });
        return "erased" as const;
      },
      { timeout: 30_000, maxWait: 10_000 },
    );
    results.push({ personDid, result });
  }
  return results;
}

/** The people an audit export records as erased (its `person.erased` entries). */
export function erasedInExport(artifact: unknown): string[] {
  const entries = (artifact as { entries?: { action?: unknown; subject?: unknown }[] } | null)?.entries;
  if (!Array.isArray(entries)) throw new Error("not an audit export (no entries)");
  return entries.filter((e) => e.action === "person.erased" && typeof e.subject === "string").map((e) => e.subject as string);
}

/**
 * Erases one person now unless something holds it, in the caller's transaction (for the
 * retention run, docs/data-protection.md, "Retention"): "held" leaves everything as it was.
 */
export async function eraseUnlessHeld(
  tx: Tx,
  org: Pick<Organization, "id" | "amlRetentionDays">,
  personId: string,
  at: Date,
  actor: string,
): Promise<"erased" | "held" | "already_erased"> {
  const s = await lockSubject(tx, org.id, personId);
  if (s.person.erasedAt) return "already_erased";
  if ((await erasureHolds(tx, org, s, at)).heldBy.length) return "held";
  await carryOut(tx, s, { requestedAt: at, requestedBy: actor, at, actor });
  return "erased";
}
