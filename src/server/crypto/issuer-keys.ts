import { ed25519 } from "@noble/curves/ed25519.js";
import { base58, base64urlnopad } from "@scure/base";
import { env } from "@/env";
import { localSecretFile } from "./data-dir";
import { decodeIssuerSeed, decodePublicKeyMultibase, ISSUER_SEED_FORM } from "./key-encoding";

/**
 * The issuer's Ed25519 keys. The current key signs credentials and export checkpoints; previous
 * keys (BI_ISSUER_PREVIOUS_KEYS, publicKeyMultibase values) stay listed in the DID document so
 * what they signed still verifies after rotation.
 */
export type IssuerKey = {
  /** publicKeyMultibase: "z" + base58btc(0xed 0x01 + public key) (Multikey, did:key style). */
  publicKeyMultibase: string;
  publicKey: Uint8Array;
};
export type SigningKey = IssuerKey & { secretKey: Uint8Array };

const ED25519_MULTICODEC = Uint8Array.of(0xed, 0x01);

export function publicKeyMultibase(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(ED25519_MULTICODEC.length + publicKey.length);
  bytes.set(ED25519_MULTICODEC);
  bytes.set(publicKey, ED25519_MULTICODEC.length);
  return `z${base58.encode(bytes)}`;
}

export { decodePublicKeyMultibase };

function fromSeed(encoded: string): SigningKey {
  const seed = decodeIssuerSeed(encoded);
  if (!seed) throw new Error(`BI_ISSUER_SIGNING_KEY ${ISSUER_SEED_FORM}`);
  const publicKey = ed25519.getPublicKey(seed);
  return { secretKey: seed, publicKey, publicKeyMultibase: publicKeyMultibase(publicKey) };
}

let current: SigningKey | undefined;

export function issuerSigningKey(): SigningKey {
  current ??= fromSeed(
    env().BI_ISSUER_SIGNING_KEY ?? localSecretFile("issuer-ed25519.seed", () => base64urlnopad.encode(ed25519.utils.randomSecretKey())),
  );
  return current;
}

/** Tests change the issuer key between cases; production code never calls this. */
export function resetIssuerKeyCache(): void {
  current = undefined;
}

/** Every key a verifier may meet: the current one first, then previous ones. */
export function issuerKeys(): IssuerKey[] {
  const previous = env()
    .BI_ISSUER_PREVIOUS_KEYS.split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((m) => ({ publicKeyMultibase: m, publicKey: decodePublicKeyMultibase(m) }));
  const cur = issuerSigningKey();
  return [{ publicKey: cur.publicKey, publicKeyMultibase: cur.publicKeyMultibase }, ...previous];
}

/** did:web:<host> of this deployment (a port is percent-encoded, as did:web requires). */
export function issuerDid(): string {
  const url = new URL(env().BI_PUBLIC_URL);
  return `did:web:${encodeURIComponent(url.host)}`;
}

/** The verification method id of a key: the DID plus its multibase as fragment. */
export const verificationMethodId = (key: IssuerKey) => `${issuerDid()}#${key.publicKeyMultibase}`;

export const signEd25519 = (message: Uint8Array, key: SigningKey = issuerSigningKey()) => ed25519.sign(message, key.secretKey);
