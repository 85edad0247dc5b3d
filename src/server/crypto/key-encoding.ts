import { base58, base64urlnopad } from "@scure/base";

/**
 * How the key settings are written (README.md, "Configuration"), decoded without reading the
 * environment, so that src/env.ts refuses a bad key at start-up with exactly the rules the code
 * that uses it applies later.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * base64url, padded (as `openssl rand 32 | basenc --base64url` writes it, docs/operations.md,
 * "Settings") or unpadded (as our own generated local seed is); null for anything else.
 */
export function decodeBase64url(value: string): Uint8Array | null {
  const body = value.replace(/={1,2}$/, "");
  if (!BASE64URL.test(body) || body.length % 4 === 1) return null;
  // Padding, when present, must complete the last group of four exactly.
  if (body.length !== value.length && value.length % 4 !== 0) return null;
  try {
    return base64urlnopad.decode(body);
  } catch {
    return null;
  }
}

/** BI_ISSUER_SIGNING_KEY: a 32-byte Ed25519 seed in base64url; null when it is not one. */
export function decodeIssuerSeed(value: string): Uint8Array | null {
  const seed = decodeBase64url(value);
  return seed?.length === 32 ? seed : null;
}

export const ISSUER_SEED_FORM = "must be a 32-byte Ed25519 seed in base64url, padded or not (openssl rand 32 | basenc --base64url)";

/** An Ed25519 Multikey's public key from its publicKeyMultibase ("z" + base58btc(0xed 0x01 + key)). */
export function decodePublicKeyMultibase(multibase: string): Uint8Array {
  if (!multibase.startsWith("z")) throw new Error("publicKeyMultibase must be base58btc ('z')");
  const bytes = base58.decode(multibase.slice(1));
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) throw new Error("not an Ed25519 Multikey");
  return bytes.slice(2);
}

/** BI_ISSUER_PREVIOUS_KEYS: comma-separated publicKeyMultibase values; the number of entries that are not one. */
export function badPreviousKeys(list: string): number {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .filter((m) => {
      try {
        decodePublicKeyMultibase(m);
        return false;
      } catch {
        return true;
      }
    }).length;
}

/** BI_HASH_KEY: 32 bytes of base64 (Node's decoder, as it has always been read); null otherwise. */
export function decodeHashKey(value: string): Buffer | null {
  const key = Buffer.from(value, "base64");
  return key.length === 32 ? key : null;
}

export type EncryptionKey = { id: string; key: Buffer };

/**
 * BI_ENCRYPTION_KEY: "id:base64key" entries separated by commas (an entry without an id is
 * k<position>); the first encrypts, all decrypt. Throws naming the entry's id, never the key.
 */
export function parseEncryptionKeys(spec: string): EncryptionKey[] {
  const keys = spec
    .split(",")
    .filter(Boolean)
    .map((part, i) => {
      const [id, b64] = part.includes(":") ? (part.split(":", 2) as [string, string]) : [`k${i + 1}`, part];
      const key = Buffer.from(b64, "base64");
      if (key.length !== 32) throw new Error(`entry ${id} must be 32 bytes of base64`);
      return { id, key };
    });
  if (!keys.length) throw new Error("must list at least one id:key entry");
  return keys;
}
