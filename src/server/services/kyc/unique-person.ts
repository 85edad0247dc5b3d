import { randomUUID } from "node:crypto";
import type { Person } from "@/generated/prisma/client.ts";
import { hmacSha256Hex } from "../../crypto/hash";
import { documentText, identityHashes, nameBirthText } from "../../crypto/identity-hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { deriveKey } from "../../crypto/secret-box";
import { Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { personDidOf } from "../../platform/account-ref";
import { emitEvent, eventInsertSql } from "../../platform/outbox";
import type { IdentityAttributes } from "../../providers/kyc/types";
import { appendAudit, type GroupedWrite } from "../audit";

/**
 * One person, one account (docs/api/guides/unique-person.md). At approval, what the provider
 * verified is hashed (crypto/identity-hash.ts) into a stable human id: the document's (strong) and
 * the name-with-birth-date's (weak). Two people of one organization with the same document are the
 * same human; with only the same name and birth date they may be. The person's pairwise id is
 * derived from the human id and the organization: equal for two verifications of one document in
 * one organization, unrelated across organizations, and it reveals nothing about the document.
 */

type Kind = "document" | "name_birth";

/** The human id a text names, made on first sight and kept under every configured key (so a rotation keeps it). */
async function humanIdOf(tx: Tx, kind: Kind, text: string): Promise<string> {
  const hashes = identityHashes(text);
  const found = await tx.identityHash.findFirst({
    where: { OR: hashes.map((h) => ({ keyId: h.keyId, hash: h.hash })) },
    select: { humanId: true },
  });
  const candidate = found?.humanId ?? randomUUID();
  await tx.identityHash.createMany({ data: hashes.map((h) => ({ ...h, kind, humanId: candidate })), skipDuplicates: true });
  // Two first sightings at once: the row that won under the newest key names the human.
  const winner = await tx.identityHash.findUnique({
    where: { keyId_hash: { keyId: hashes[0]!.keyId, hash: hashes[0]!.hash } },
    select: { humanId: true },
  });
  return winner!.humanId;
}

/** The person's id for one organization: HMAC of the organization and the human (or, without a document, the person). */
export const pairwiseIdOf = (orgId: string, humanOrPersonId: string) =>
  `pw_${hmacSha256Hex(deriveKey("pairwise-id"), `${orgId}|${humanOrPersonId}`).slice(0, 40)}`;

export type DuplicateFinding = { kind: Kind; personIds: string[] } | null;

/**
 * Records the human behind an approved person, in the approval's transaction: human ids, the
 * pairwise id, and whether another person of the organization is the same human (document) or
 * may be (name and birth date). A duplicate is recorded on the person, audited and announced
 * (`kyc.duplicate_person`); what it stops is the organization's policy (`duplicatePersonPolicy`).
 */
export async function recordHuman(
  tx: Tx,
  person: Person,
  identity: IdentityAttributes,
  policy: string,
  /** Sandbox reviews: every test person has the same invented name, so the name key is made the person's own (a document still links them). */
  sandboxPersonId: string | null = null,
): Promise<DuplicateFinding> {
  const texts = humanTexts(identity, sandboxPersonId);
  const humanId = texts.document ? await humanIdOf(tx, "document", texts.document) : null;
  const nameBirthHumanId = texts.nameBirth ? await humanIdOf(tx, "name_birth", texts.nameBirth) : null;
  const others = async (where: { humanId: string } | { nameBirthHumanId: string }) =>
    (
      await tx.person.findMany({
        where: { orgId: person.orgId, id: { not: person.id }, erasedAt: null, kycStatus: "approved", ...where },
        select: { id: true },
        orderBy: { createdAt: "asc" },
      })
    ).map((p) => p.id);
  const sameDocument = humanId ? await others({ humanId }) : [];
  const sameNameBirth = !sameDocument.length && nameBirthHumanId ? await others({ nameBirthHumanId }) : [];
  const finding: DuplicateFinding = sameDocument.length
    ? { kind: "document", personIds: sameDocument }
    : sameNameBirth.length
      ? { kind: "name_birth", personIds: sameNameBirth }
      : null;
  await tx.person.update({
    where: { id: person.id },
    data: {
      humanId,
      nameBirthHumanId,
      pairwiseId: pairwiseIdOf(person.orgId, humanId ?? person.id),
      duplicateOf: finding?.kind ?? null,
      duplicatePersonIds: finding?.personIds ?? [],
    },
  });
  const notice = duplicateNotice(person.id, finding, policy);
  if (notice) {
    await emitEvent(tx, person.orgId, "kyc.duplicate_person", notice.payload);
    await appendAudit(tx, { orgId: person.orgId, actor: notice.actor }, notice.input);
  }
  return finding;
}

/** What a duplicate announces (`kyc.duplicate_person`) and audits, unless the organization's policy allows duplicates. */
function duplicateNotice(personId: string, finding: DuplicateFinding, policy: string) {
  if (!finding || policy === "allow") return null;
  const issuer = issuerDid();
  const payload = {
    personDid: personDidOf(issuer, personId),
    match: finding.kind,
    otherPersonDids: finding.personIds.map((id) => personDidOf(issuer, id)),
    createRefused: finding.kind === "document" && policy === "refuse",
  };
  const input = {
    action: "kyc.duplicate_person",
    subjectType: "person",
    subject: payload.personDid,
    data: { match: finding.kind, otherPersonDids: payload.otherPersonDids, createRefused: payload.createRefused },
  };
  return { payload, actor: "system:unique-person", input };
}

/** The texts an approval hashes into human ids: the document's and the name-with-birth-date's (as recordHuman makes them). */
export type HumanTexts = { document: string | null; nameBirth: string | null };

export function humanTexts(identity: IdentityAttributes, sandboxPersonId: string | null): HumanTexts {
  const doc = identity.document;
  return {
    document: doc?.number && doc.country ? documentText(doc) : null,
    nameBirth:
      identity.fullName && identity.birthDate
        ? nameBirthText({
            fullName: identity.fullName,
            birthDate: identity.birthDate,
            nationality: identity.nationality ?? identity.country ?? null,
          }) + (sandboxPersonId ? `|sandbox:${sandboxPersonId}` : "")
        : null,
  };
}

/** Every hash of the texts under the configured keys: what one read looks up before the write. */
export const humanHashLookups = (texts: HumanTexts) => [texts.document, texts.nameBirth].flatMap((t) => (t ? identityHashes(t) : []));

export type FoundHash = { keyId: string; hash: string; humanId: string };
/** Approved, unerased people of the organization whose human id or name-birth human id is one of the found ones, oldest first. */
export type ApprovedOther = { id: string; humanId: string | null; nameBirthHumanId: string | null };

/**
 * recordHuman for a write of one statement (a KYC review arriving, docs/performance.md "Product
 * paths"): from the hashes and people read before, the human ids, the pairwise id and the
 * duplicate finding, with the writes and the audit entry that commit with the approval.
 *
 * The identity hash rules are recordHuman's: the human id is made on first sight and kept under
 * every key, and the row under the newest key names the human. That row's write must answer the
 * human id chosen here (it is inserted, or it already holds it); when a concurrent first sighting
 * won it, the write touches no row, the whole statement fails, and the caller reads again and
 * finds the winner (and the person it approved, as a duplicate).
 */
export function planHuman(
  person: { id: string; orgId: string },
  texts: HumanTexts,
  found: FoundHash[],
  others: ApprovedOther[],
  policy: string,
  at: Date,
) {
  const writes: GroupedWrite[] = [];
  const humanOf = (kind: Kind, text: string | null) => {
    if (!text) return null;
    const hashes = identityHashes(text);
    const stored = (h: { keyId: string; hash: string }) => found.find((f) => f.keyId === h.keyId && f.hash === h.hash);
    const humanId = stored(hashes[0]!)?.humanId ?? hashes.map(stored).find(Boolean)?.humanId ?? randomUUID();
    const row = (h: { keyId: string; hash: string }) => Prisma.sql`(${h.keyId}, ${h.hash}, ${kind}, ${humanId}::uuid, ${utcTimestamp(at)})`;
    writes.push({
      sql: Prisma.sql`INSERT INTO identity_hashes ("keyId", hash, kind, "humanId", "createdAt") VALUES ${row(hashes[0]!)}
        ON CONFLICT ("keyId", hash) DO UPDATE SET "humanId" = identity_hashes."humanId" WHERE identity_hashes."humanId" = EXCLUDED."humanId"`,
      rows: 1,
    });
    if (hashes.length > 1)
      writes.push({
        sql: Prisma.sql`INSERT INTO identity_hashes ("keyId", hash, kind, "humanId", "createdAt") VALUES ${Prisma.join(hashes.slice(1).map(row))}
          ON CONFLICT DO NOTHING`,
        rows: null,
      });
    return humanId;
  };
  const humanId = humanOf("document", texts.document);
  const nameBirthHumanId = humanOf("name_birth", texts.nameBirth);
  const sameDocument = humanId ? others.filter((o) => o.humanId === humanId).map((o) => o.id) : [];
  const sameNameBirth =
    !sameDocument.length && nameBirthHumanId ? others.filter((o) => o.nameBirthHumanId === nameBirthHumanId).map((o) => o.id) : [];
  const finding: DuplicateFinding = sameDocument.length
    ? { kind: "document", personIds: sameDocument }
    : sameNameBirth.length
      ? { kind: "name_birth", personIds: sameNameBirth }
      : null;
  // The duplicate's event and audit entry commit with the approval (its entry chained right after the approval's).
  const notice = duplicateNotice(person.id, finding, policy);
  if (notice) writes.push({ sql: eventInsertSql(person.orgId, "kyc.duplicate_person", notice.payload, at), rows: 1 });
  const audit = notice ? [{ actor: notice.actor, input: notice.input }] : [];
  const set = {
    humanId,
    nameBirthHumanId,
    pairwiseId: pairwiseIdOf(person.orgId, humanId ?? person.id),
    duplicateOf: finding?.kind ?? null,
    duplicatePersonIds: finding?.personIds ?? [],
  };
  return { set, writes, audit, finding };
}

/** Whether the organization's policy refuses this person a create token: the same document as another person, under "refuse". */
export const createRefusedForDuplicate = (person: Pick<Person, "duplicateOf">, policy: string) =>
  person.duplicateOf === "document" && policy === "refuse";
