import { z } from "zod";
import type { ServiceContext } from "../../context";
import { openContact } from "../../crypto/account-box";
import { sha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { jcs } from "../../crypto/jcs";
import { openPersonal, openStored } from "../../crypto/person-box";
import type { Tx } from "../../db/client";
import { readAll } from "../../db/tx";
import { notFound } from "../../errors";
import { personDidOf, personIdOfRef } from "../../platform/account-ref";
import { appendAudit, checkpointProofProblem, signCheckpoint } from "../audit";

/**
 * GET /v1/people/{personDid}/export: everything the service holds about one person, opened, in
 * one document signed like an audit export (audit/checkpoint-proof.ts), for the tenant to hand to
 * the person who asked (an access request, GDPR Article 15). The checkpoint holds the SHA-256 of
 * the data's JCS form; the Ed25519 proof covers the checkpoint; `npm run export:verify` checks it.
 *
 * AML work is withheld and named as withheld: AML cases, screening results and risk assessments
 * may not be disclosed to their subject (the AML rules' tipping-off prohibition, which restricts
 * the right of access). The tenant reads those through the AML endpoints.
 */
export const PERSON_EXPORT_FORMAT = "bi-person-export/1";
const CHECKPOINT_TYPE = "bi-person-export-checkpoint/1";
export const WITHHELD = ["aml_cases", "screening_results", "risk_events"] as const;

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

async function gather(tx: Tx, orgId: string, personId: string) {
  const person = await tx.person.findFirst({ where: { id: personId, orgId } });
  if (!person) return null;
  const did = personDidOf(issuerDid(), person.id);
  const [subject, key, sessions, bindings, bindSessions] = await readAll(tx, [
    () => tx.screeningSubject.findUnique({ where: { personId: person.id } }),
    () => tx.personKey.findUnique({ where: { personId: person.id } }),
    () => tx.kycSession.findMany({ where: { personId: person.id }, orderBy: { createdAt: "asc" } }),
    () => tx.accountBinding.findMany({ where: { personId: person.id }, orderBy: { createdAt: "asc" }, include: { account: true } }),
    () => tx.bindSession.findMany({ where: { personId: person.id }, select: { accountId: true } }),
  ]);
  const accountIds = [
    ...new Set([
      ...bindings.map((b) => b.accountId),
      ...bindSessions.map((b) => b.accountId),
      ...sessions.map((s) => s.accountId).filter((a): a is string => !!a),
    ]),
  ];
  const accounts = await tx.account.findMany({ where: { id: { in: accountIds }, orgId }, orderBy: { createdAt: "asc" } });
  // The identity kept for re-screening (screening/monitoring-subjects.ts): name, birth date, country.
  const opened = subject ? openStored(subject.querySealed, key?.keySealed) : null;
  const identity = opened ? (JSON.parse(opened) as Record<string, unknown>) : null;
  return {
    did,
    data: {
      person: {
        personDid: did,
        kycStatus: person.kycStatus,
        kycLevel: person.kycLevel,
        kycProvider: person.kycProvider,
        country: person.country,
        verifiedPhone: person.verifiedPhone && openPersonal(person.verifiedPhone, key?.keySealed),
        reviewedAt: iso(person.reviewedAt),
        createdAt: person.createdAt.toISOString(),
        erasedAt: iso(person.erasedAt),
      },
      verifiedIdentity: identity,
      verifications: sessions.map((s) => ({
        provider: s.provider,
        level: s.level,
        status: s.status,
        // The provider's reference, sealed under the person's key (a clear one is from before).
        providerReference: s.providerSessionId && openPersonal(s.providerSessionId, key?.keySealed),
        // Sealed under the person's key since it was written (a clear one is from before).
        clientIp: s.clientIp && openPersonal(s.clientIp, key?.keySealed),
        review: s.review,
        createdAt: s.createdAt.toISOString(),
      })),
      accounts: accounts.map((a) => ({
        accountDid: a.did,
        chain: a.chain,
        name: a.name,
        lifecycle: a.lifecycle,
        // Sealed under the account's data key (a clear one is from before).
        email: openContact(a.email, a.dataKeySealed),
        emailVerifiedAt: iso(a.emailVerifiedAt),
        phone: openContact(a.phone, a.dataKeySealed),
        phoneVerifiedAt: iso(a.phoneVerifiedAt),
        createdAt: a.createdAt.toISOString(),
      })),
      bindings: bindings.map((b) => ({
        bindingId: b.id,
        accountDid: b.account.did,
        status: b.status,
        createdAt: b.createdAt.toISOString(),
        revokedAt: iso(b.revokedAt),
        credential: b.credential,
      })),
      withheld: [...WITHHELD],
    },
  };
}

/** The export, and its `person.exported` audit entry, in one transaction. */
export async function exportPerson(ctx: ServiceContext, personDid: string) {
  const personId = personIdOfRef(issuerDid(), personDid);
  if (!personId) throw notFound("Person");
  return ctx.db.$transaction(
    async (tx) => {
      const found = await gather(tx, ctx.org.id, personId);
      if (!found) throw notFound("Person");
      const now = ctx.now();
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        { action: "person.exported", subjectType: "person", subject: found.did },
      );
      const checkpoint = {
        type: CHECKPOINT_TYPE,
        organizationId: ctx.org.id,
        personDid: found.did,
        dataDigest: sha256Hex(jcs(found.data)),
        createdAt: now.toISOString(),
      };
      return {
        format: PERSON_EXPORT_FORMAT,
        organizationId: ctx.org.id,
        personDid: found.did,
        data: found.data,
        checkpoint,
        proof: signCheckpoint(checkpoint),
      };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}

const Proof = z.object({
  alg: z.literal("Ed25519"),
  canonicalization: z.literal("JCS"),
  verificationMethod: z.string(),
  signatureMultibase: z.string(),
});

/** The shape of the answer, for the API reference and the verifier. */
export const PersonExport = z
  .object({
    format: z.literal(PERSON_EXPORT_FORMAT),
    organizationId: z.string(),
    personDid: z.string(),
    data: z.record(z.string(), z.unknown()).describe("Everything held about the person, opened; AML work listed in `withheld`"),
    checkpoint: z.object({
      type: z.literal(CHECKPOINT_TYPE),
      organizationId: z.string(),
      personDid: z.string(),
      dataDigest: z.string().describe("Hex SHA-256 of the JCS form of `data`"),
      createdAt: z.iso.datetime(),
    }),
    proof: Proof,
  })
  .meta({ id: "PersonExport" });

/**
 * Checks a person export away from the service with the issuer's public key alone: the
 * checkpoint's signature over its JCS form, that it names this organization and person, and that
 * `dataDigest` is the SHA-256 of the data's JCS form as received. Pure.
 */
export function verifyPersonExport(input: unknown, publicKeyMultibase: string): { valid: true } | { valid: false; reason: string } {
  const parsed = PersonExport.safeParse(input);
  if (!parsed.success) return { valid: false, reason: `the artifact does not have the ${PERSON_EXPORT_FORMAT} shape` };
  const raw = input as { checkpoint: unknown; data: unknown };
  const a = parsed.data;
  const problem = checkpointProofProblem(raw.checkpoint, a.proof, publicKeyMultibase);
  if (problem) return { valid: false, reason: problem };
  if (a.checkpoint.organizationId !== a.organizationId || a.checkpoint.personDid !== a.personDid)
    return { valid: false, reason: "the checkpoint describes another organization or person" };
  if (sha256Hex(jcs(raw.data)) !== a.checkpoint.dataDigest) return { valid: false, reason: "the data digest does not match the data" };
  return { valid: true };
}
