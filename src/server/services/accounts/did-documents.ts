import { issuerDid, issuerKeys, verificationMethodId } from "../../crypto/issuer-keys";
import type { Db } from "../../db/client";
import { notFound } from "../../errors";
import { isUuid } from "../../platform/ids";

const DID_CONTEXT = ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"];

/**
 * The issuer's did:web document: every issuer key (current first, then previous ones, so what
 * they signed still verifies) as a Multikey listed under assertionMethod.
 */
export function issuerDidDocument() {
  const did = issuerDid();
  const methods = issuerKeys().map((k) => ({
    id: verificationMethodId(k),
    type: "Multikey",
    controller: did,
    publicKeyMultibase: k.publicKeyMultibase,
  }));
  return {
    "@context": DID_CONTEXT,
    id: did,
    verificationMethod: methods,
    assertionMethod: methods.map((m) => m.id),
  };
}

/** A subject's document: its did:web id under the issuer, the issuer as controller, and one status field. */
const subjectDocument = (kind: "people" | "orgs", id: string, status: Record<string, string>) => ({
  "@context": ["https://www.w3.org/ns/did/v1"],
  id: `${issuerDid()}:${kind}:${id}`,
  controller: issuerDid(),
  ...status,
});

/**
 * A person's document exposes the KYC status and the status of each binding under its credential's
 * id (`urn:uuid:…`): a holder of the credential can look it up, but no name, country, flag or
 * account is shown, so the public document does not link the person to their accounts.
 */
export async function personDidDocument(db: Db, personId: string) {
  const person = isUuid(personId)
    ? await db.person.findUnique({ where: { id: personId }, select: { id: true, orgId: true, kycStatus: true, erasedAt: true } })
    : null;
  if (!person) throw notFound("Person");
  // An erased person's document says nothing about them: no status, no credentials (their
  // credentials still read revoked in the status lists, which they carry).
  if (person.erasedAt) return { ...subjectDocument("people", person.id, { kycStatus: "erased" }), bindings: [] };
  // By the person's organization too: the bindings' indexes all start with it.
  const bindings = await db.accountBinding.findMany({
    where: { orgId: person.orgId, personId: person.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, status: true },
  });
  return {
    ...subjectDocument("people", person.id, { kycStatus: person.kycStatus }),
    bindings: bindings.map((b) => ({ credentialId: `urn:uuid:${b.id}`, status: b.status })),
  };
}

/** An organization's document exposes the KYB status only. */
export async function orgDidDocument(db: Db, orgId: string) {
  const org = isUuid(orgId) ? await db.organization.findUnique({ where: { id: orgId }, select: { id: true, kybStatus: true } }) : null;
  if (!org) throw notFound("Organization");
  return subjectDocument("orgs", org.id, { kybStatus: org.kybStatus });
}
