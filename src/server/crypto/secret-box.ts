import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { env } from "@/env";
import { localSecretFile } from "./data-dir";
import { decodeHashKey, type EncryptionKey, parseEncryptionKeys } from "./key-encoding";

/**
 * AES-256-GCM for secrets we must read back (request-signing and webhook secrets, reveal
 * payloads). Envelope: "v1.<keyId>.<iv>.<ciphertext+tag>" (base64url). BI_ENCRYPTION_KEY holds
 * "keyId:base64key" pairs separated by commas; the first encrypts, all decrypt (rotation).
 * Without it (local use only) a key is generated under BI_DATA_DIR/keys.
 */
let keys: EncryptionKey[] | undefined;

function parseKeys(spec: string): EncryptionKey[] {
  try {
    return parseEncryptionKeys(spec);
  } catch (err) {
    throw new Error(`BI_ENCRYPTION_KEY ${(err as Error).message}`);
  }
}

function loadKeys(): EncryptionKey[] {
  keys ??= parseKeys(env().BI_ENCRYPTION_KEY ?? `local:${localSecretFile("encryption.key", () => randomBytes(32).toString("base64"))}`);
  return keys;
}

export function seal(plaintext: string): string {
  const k = loadKeys()[0]!;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", k.key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return ["v1", k.id, iv.toString("base64url"), ct.toString("base64url")].join(".");
}

export function open(envelope: string): string {
  const [v, id, ivB64, ctB64] = envelope.split(".");
  const k = loadKeys().find((x) => x.id === id);
  if (v !== "v1" || !k || !ivB64 || !ctB64) throw new Error("secret envelope cannot be opened with the configured keys");
  const data = Buffer.from(ctB64, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", k.key, Buffer.from(ivB64, "base64url"));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString("utf8");
}

let hashKey: Buffer | undefined;
/** deriveKey's keys by label, derived from hashKey (cleared with it). */
const derivedKeys = new Map<string, Buffer>();

/**
 * BI_HASH_KEY: the root of every keyed hash (applicant id hashes, OTP code hashes). It is not an
 * encryption key, so rotating BI_ENCRYPTION_KEY never changes an identifier already stored (a
 * denylist entry keeps matching). Without it (local use only) one is generated under BI_DATA_DIR/keys.
 */
function loadHashKey(): Buffer {
  if (!hashKey) {
    const b64 = env().BI_HASH_KEY ?? localSecretFile("hash.key", () => randomBytes(32).toString("base64"));
    const key = decodeHashKey(b64);
    if (!key) throw new Error("BI_HASH_KEY must be 32 bytes of base64");
    hashKey = key;
  }
  return hashKey;
}

/**
 * A 32-byte key for one purpose (e.g. "otp-code"), derived with HKDF from BI_HASH_KEY, so hashes of
 * low-entropy values (6-digit codes, names) cannot be brute-forced from a database dump alone.
 */
export function deriveKey(label: string): Buffer {
  // Derived once per label and kept, as the hash key itself is: hot paths (risk hashes on every
  // bind and free create) would otherwise run HKDF on every call.
  let key = derivedKeys.get(label);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", loadHashKey(), Buffer.alloc(0), `bind-identity:${label}`, 32));
    derivedKeys.set(label, key);
  }
  return key;
}

/** Tests change the keys between cases; production code never calls this. */
export function resetSecretBoxKeys(): void {
  keys = undefined;
  hashKey = undefined;
  derivedKeys.clear();
}
