import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * A value sealed under a data key of its owner's own (a person's, person-box.ts; an account's,
 * account-box.ts): AES-256-GCM with the owner's id as associated data, written
 * "<prefix>.<ownerId>.<iv>.<ciphertext+tag>" (base64url), the prefix saying whose key opens it.
 */
export function sealUnder(prefix: string, key: Buffer, ownerId: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(ownerId));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return [prefix, ownerId, iv.toString("base64url"), ct.toString("base64url")].join(".");
}

/** Opens a value sealUnder made with `prefix` and `key`; throws when it was not sealed so. */
export function openUnder(prefix: string, key: Buffer, value: string): string {
  const [v, ownerId, ivB64, ctB64] = value.split(".");
  if (v !== prefix || !ownerId || !ivB64 || !ctB64) throw new Error(`not a value sealed with prefix ${prefix}`);
  const data = Buffer.from(ctB64, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(ivB64, "base64url"));
  decipher.setAAD(Buffer.from(ownerId));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString("utf8");
}
