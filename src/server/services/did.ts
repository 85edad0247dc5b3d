import type { Db } from "../db/client";
import { issuerDid, issuerKeys, verificationMethodId } from "../crypto/issuer-keys";
import { notFound } from "../errors";

const DID_CONTEXT = ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** A person's document exposes the KYC status only: no name, country, flags or accounts. */
export async function personDidDocument(db: Db, personId: string) {
  if (!UUID.test(personId)) throw notFound("Person");
  const person = await db.person.findUnique({ where: { id: personId }, select: { id: true, kycStatus: true } });
  if (!person) throw notFound("Person");
  return {
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: `${issuerDid()}:people:${person.id}`,
    controller: issuerDid(),
    kycStatus: person.kycStatus,
  };
}

/** An organization's document exposes the KYB status only. */
export async function orgDidDocument(db: Db, orgId: string) {
  if (!UUID.test(orgId)) throw notFound("Organization");
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { id: true, kybStatus: true } });
  if (!org) throw notFound("Organization");
  return {
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: `${issuerDid()}:orgs:${org.id}`,
    controller: issuerDid(),
    kybStatus: org.kybStatus,
  };
}
