import { type VerifyOutcome, verifyEddsaJcs2022 } from "./data-integrity";
import { decodePublicKeyMultibase } from "./issuer-keys";

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
