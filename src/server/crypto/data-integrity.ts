import { createHash, createPrivateKey, type KeyObject, sign } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { jcs } from "./jcs";

// W3C Data Integrity proofs with the eddsa-jcs-2022 cryptosuite (VC Data Integrity EdDSA
// Cryptosuites v1.0, §3.3). Pure: no environment, no database, so the offline verifier
// (`npm run vc:verify`) and tenants' own code can use it as it is.

export type JsonObject = { [k: string]: unknown };

export type DataIntegrityProof = {
  "@context"?: unknown;
  type: "DataIntegrityProof";
  cryptosuite: "eddsa-jcs-2022";
  created: string;
  verificationMethod: string;
  proofPurpose: string;
  proofValue: string;
};

const sha256 = (s: string) => new Uint8Array(createHash("sha256").update(s, "utf8").digest());

// PKCS #8 DER of an Ed25519 private key (RFC 8410) up to its 32-byte seed.
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const nativeKeys = new WeakMap<Uint8Array, KeyObject>();

/**
 * Ed25519 (RFC 8032) by Node's native crypto: the signature is deterministic, so it is the same
 * bytes @noble/curves' `ed25519.sign` gives, for a few per cent of its CPU (the pure-JS signer
 * derives the public key again on every call). The key object is made once per seed array.
 */
function ed25519Sign(message: Uint8Array, seed: Uint8Array): Uint8Array {
  let key = nativeKeys.get(seed);
  if (!key) {
    if (seed.length !== 32) throw new Error("an Ed25519 secret key is a 32-byte seed");
    key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
    nativeKeys.set(seed, key);
  }
  return new Uint8Array(sign(null, message, key));
}

/** hashData = SHA-256(JCS(proof options)) ‖ SHA-256(JCS(document without proof)). */
function hashData(proofOptions: JsonObject, document: JsonObject): Uint8Array {
  const { proofValue: _ignored, ...options } = proofOptions;
  const a = sha256(jcs(options));
  const b = sha256(jcs(document));
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * Secures `document` with an eddsa-jcs-2022 proof. The proof carries the document's `@context`
 * (the suite's proof configuration step), which verifiers check is a prefix of the document's.
 */
export function signEddsaJcs2022(
  document: JsonObject,
  opts: { secretKey: Uint8Array; verificationMethod: string; created: Date; proofPurpose?: string },
): JsonObject & { proof: DataIntegrityProof } {
  const { proof: _existing, ...unsecured } = document;
  const options: JsonObject = {
    type: "DataIntegrityProof",
    cryptosuite: "eddsa-jcs-2022",
    created: opts.created.toISOString().replace(/\.\d{3}Z$/, "Z"),
    verificationMethod: opts.verificationMethod,
    proofPurpose: opts.proofPurpose ?? "assertionMethod",
    ...(unsecured["@context"] !== undefined ? { "@context": unsecured["@context"] } : {}),
  };
  const signature = ed25519Sign(hashData(options, unsecured), opts.secretKey);
  return { ...unsecured, proof: { ...options, proofValue: `z${base58.encode(signature)}` } as DataIntegrityProof };
}

export type VerifyOutcome = { verified: true; verificationMethod: string } | { verified: false; reason: string };

/**
 * Verifies an eddsa-jcs-2022 proof. `resolveKey` maps the proof's verificationMethod to the raw
 * Ed25519 public key that the issuer lists under `assertionMethod`, or null when it does not.
 * Never throws for a bad credential: the reason says what is wrong.
 */
export function verifyEddsaJcs2022(secured: unknown, resolveKey: (verificationMethod: string) => Uint8Array | null): VerifyOutcome {
  if (typeof secured !== "object" || secured === null || Array.isArray(secured))
    return { verified: false, reason: "the credential is not a JSON object" };
  const { proof, ...document } = secured as JsonObject;
  if (typeof proof !== "object" || proof === null || Array.isArray(proof))
    return { verified: false, reason: "the credential has no single proof object" };
  const p = proof as JsonObject;
  if (p.type !== "DataIntegrityProof")
    return { verified: false, reason: `proof.type is ${JSON.stringify(p.type)}, not DataIntegrityProof` };
  if (p.cryptosuite !== "eddsa-jcs-2022")
    return { verified: false, reason: `proof.cryptosuite is ${JSON.stringify(p.cryptosuite)}, not eddsa-jcs-2022` };
  if (p.proofPurpose !== "assertionMethod") return { verified: false, reason: "proof.proofPurpose is not assertionMethod" };
  if (typeof p.verificationMethod !== "string") return { verified: false, reason: "proof.verificationMethod is missing" };
  if (typeof p.proofValue !== "string" || !p.proofValue.startsWith("z"))
    return { verified: false, reason: "proof.proofValue is not a base58btc multibase string" };
  if (p["@context"] !== undefined) {
    const proofCtx = ([] as unknown[]).concat(p["@context"]);
    const docCtx = ([] as unknown[]).concat(document["@context"] ?? []);
    if (proofCtx.some((c, i) => jcs(c) !== jcs(docCtx[i] ?? null)))
      return { verified: false, reason: "the document's @context does not start with the proof's @context" };
    document["@context"] = p["@context"];
  }
  const publicKey = resolveKey(p.verificationMethod);
  if (!publicKey)
    return { verified: false, reason: `the verification method ${p.verificationMethod} is not an assertionMethod key of the issuer` };
  let signature: Uint8Array;
  try {
    signature = base58.decode(p.proofValue.slice(1));
  } catch {
    return { verified: false, reason: "proof.proofValue is not valid base58btc" };
  }
  let ok = false;
  try {
    ok = signature.length === 64 && ed25519.verify(signature, hashData(p, document), publicKey);
  } catch {
    ok = false;
  }
  return ok
    ? { verified: true, verificationMethod: p.verificationMethod }
    : { verified: false, reason: "the signature does not match the credential's contents" };
}
