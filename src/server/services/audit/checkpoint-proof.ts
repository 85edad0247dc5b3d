import { base58 } from "@scure/base";
import { issuerSigningKey, signEd25519, verificationMethodId } from "../../crypto/issuer-keys";
import { jcs } from "../../crypto/jcs";

/**
 * The proof of a signed export: an Ed25519 signature by the issuer key over the JCS form of the
 * checkpoint, as audit export artifacts carry it (export-artifact.ts), verifiable with the
 * `publicKeyMultibase` of the issuer's DID document.
 */
export function signCheckpoint(checkpoint: unknown) {
  const key = issuerSigningKey();
  const signature = signEd25519(new TextEncoder().encode(jcs(checkpoint)), key);
  return {
    alg: "Ed25519" as const,
    canonicalization: "JCS" as const,
    verificationMethod: verificationMethodId(key),
    signatureMultibase: `z${base58.encode(signature)}`,
  };
}
