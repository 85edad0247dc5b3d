import { randomUUID } from "node:crypto";
import type { Person } from "@/generated/prisma/client.ts";
import { hmacSha256Hex } from "../../crypto/hash";
import { documentText, identityHashes, nameBirthText } from "../../crypto/identity-hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { deriveKey } from "../../crypto/secret-box";
import type { Tx } from "../../db/client";
import { personDidOf } from "../../platform/account-ref";
import { emitEvent } from "../../platform/outbox";
import type { IdentityAttributes } from "../../providers/kyc/types";
import { appendAudit } from "../audit";

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
  const doc = identity.document;
  const humanId = doc?.number && doc.country ? await humanIdOf(tx, "document", documentText(doc)) : null;
  const nameBirthHumanId =
    identity.fullName && identity.birthDate
      ? await humanIdOf(
          tx,
          "name_birth",
          nameBirthText({
            fullName: identity.fullName,
            birthDate: identity.birthDate,
            nationality: identity.nationality ?? identity.country ?? null,
          }) + (sandboxPersonId ? `|sandbox:${sandboxPersonId}` : ""),
        )
      : null;
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
  if (finding && policy !== "allow") {
    const issuer = issuerDid();
    const payload = {
      personDid: personDidOf(issuer, person.id),
      match: finding.kind,
      otherPersonDids: finding.personIds.map((id) => personDidOf(issuer, id)),
      createRefused: finding.kind === "document" && policy === "refuse",
    };
    await emitEvent(tx, person.orgId, "kyc.duplicate_person", payload);
    await appendAudit(
      tx,
      { orgId: person.orgId, actor: "system:unique-person" },
      {
        action: "kyc.duplicate_person",
        subjectType: "person",
        subject: payload.personDid,
        data: { match: finding.kind, otherPersonDids: payload.otherPersonDids, createRefused: payload.createRefused },
      },
    );
  }
  return finding;
}

/** Whether the organization's policy refuses this person a create token: the same document as another person, under "refuse". */
export const createRefusedForDuplicate = (person: Pick<Person, "duplicateOf">, policy: string) =>
  person.duplicateOf === "document" && policy === "refuse";
