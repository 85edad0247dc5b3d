import { type JsonObject, signEddsaJcs2022, type VerifyOutcome, verifyEddsaJcs2022 } from "../../crypto/data-integrity";
import { sha256Hex } from "../../crypto/hash";
import { decodePublicKeyMultibase, issuerDid, issuerSigningKey, verificationMethodId } from "../../crypto/issuer-keys";
import { jcs } from "../../crypto/jcs";

export const VC_CONTEXT_V2 = "https://www.w3.org/ns/credentials/v2";

/**
 * The AccountBinding credential (docs/api/contract-decisions.md §5): VC Data Model 2.0, issued by this
 * deployment's did:web, secured with eddsa-jcs-2022 by the current issuer key. `bindingVcHash`
 * is the hex SHA-256 of the JCS form of the signed credential.
 */
export function issueAccountBindingCredential(input: {
  bindingId: string;
  personDid: string;
  accountDid: string;
  kycLevel: string;
  issuedAt: Date;
}) {
  const key = issuerSigningKey();
  const unsigned: JsonObject = {
    "@context": [VC_CONTEXT_V2],
    id: `urn:uuid:${input.bindingId}`,
    type: ["VerifiableCredential", "AccountBindingCredential"],
    issuer: issuerDid(),
    validFrom: input.issuedAt.toISOString().replace(/\.\d{3}Z$/, "Z"),
    credentialSubject: { id: input.personDid, account: input.accountDid, kycLevel: input.kycLevel },
  };
  const credential = signEddsaJcs2022(unsigned, {
    secretKey: key.secretKey,
    verificationMethod: verificationMethodId(key),
    created: input.issuedAt,
  });
  return { credential, bindingVcHash: bindingVcHash(credential), verificationMethod: verificationMethodId(key) };
}

export const bindingVcHash = (credential: unknown) => sha256Hex(jcs(credential));

type DidDocument = { id?: unknown; verificationMethod?: unknown; assertionMethod?: unknown };

/**
 * Verifies a credential against an issuer DID document: the proof's verification method must be
 * listed under the document's `assertionMethod` as a Multikey, and the credential's issuer must be
 * the document's DID. Used by `npm run vc:verify` and the tests; needs nothing of the service.
 */
export function verifyCredentialWithDidDocument(credential: unknown, didDocument: DidDocument): VerifyOutcome {
  const issuer = (credential as { issuer?: unknown } | null)?.issuer;
  const issuerId = typeof issuer === "object" && issuer !== null ? (issuer as { id?: unknown }).id : issuer;
  if (typeof issuerId !== "string") return { verified: false, reason: "the credential names no issuer" };
  if (issuerId !== didDocument.id)
    return { verified: false, reason: `the credential's issuer ${issuerId} is not the DID document's ${String(didDocument.id)}` };
  const methods = Array.isArray(didDocument.verificationMethod) ? (didDocument.verificationMethod as Record<string, unknown>[]) : [];
  const assertion = new Set(
    (Array.isArray(didDocument.assertionMethod) ? didDocument.assertionMethod : []).map((m) =>
      typeof m === "string" ? m : (m as { id?: string }).id,
    ),
  );
  return verifyEddsaJcs2022(credential, (vm) => {
    if (!assertion.has(vm)) return null;
    const method = methods.find((m) => m.id === vm);
    if (method?.type !== "Multikey" || typeof method.publicKeyMultibase !== "string") return null;
    try {
      return decodePublicKeyMultibase(method.publicKeyMultibase);
    } catch {
      return null;
    }
  });
}
