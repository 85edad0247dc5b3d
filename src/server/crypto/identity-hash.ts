import { createHmac } from "node:crypto";
import { env } from "@/env";
import { decodeHashKey } from "./key-encoding";
import { deriveKey } from "./secret-box";

/**
 * The keys that turn what a KYC provider verified into identity hashes (docs/decisions.md,
 * "One person, one account"): a document (issuing country, type, number) or a name with a birth
 * date and nationality, hashed with HMAC-SHA256 so nothing reversible is kept and nobody without
 * the key can test a guess. BI_IDENTITY_HASH_KEYS lists them as `id:base64` entries separated by
 * commas, newest first; a bare `h0` stands for the key derived from BI_HASH_KEY, which is the only
 * one when the setting is unset. Every listed key is looked up, the first writes: a rotation adds
 * a key in front, and the hashes under the old one keep finding the same identity until it goes.
 */
export type IdentityHashKey = { id: string; key: Buffer };

let cached: { spec: string; keys: IdentityHashKey[] } | undefined;

export function identityHashKeys(): IdentityHashKey[] {
  const spec = env().BI_IDENTITY_HASH_KEYS ?? "h0";
  if (cached?.spec === spec) return cached.keys;
  const keys = spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      if (entry === "h0") return { id: "h0", key: deriveKey("identity-hash") };
      const at = entry.indexOf(":");
      const key = at > 0 ? decodeHashKey(entry.slice(at + 1)) : null;
      if (!key) throw new Error("BI_IDENTITY_HASH_KEYS: each entry is id:base64 (32 bytes) or h0");
      return { id: entry.slice(0, at), key };
    });
  cached = { spec, keys };
  return keys;
}

/** Upper-case letters and digits only: "ab 12-345 67" and "AB1234567" are one document number. */
const alnum = (s: string) =>
  s
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "");

/** Document types as providers name them, on one scale. */
export function documentType(type: string): string {
  const t = alnum(type);
  if (t.startsWith("PASSPORT")) return "PASSPORT";
  if (t === "IDCARD" || t === "IDENTITYCARD" || t === "NATIONALID" || t === "ID") return "ID_CARD";
  if (t.startsWith("DRIVER")) return "DRIVERS";
  if (t.startsWith("RESIDENCE")) return "RESIDENCE_PERMIT";
  return t || "OTHER";
}

export type VerifiedDocument = { country: string; type: string; number: string };
export type NameBirth = { fullName: string; birthDate: string; nationality: string | null };

/** The canonical text of a document: what two verifications of one document share. */
export const documentText = (d: VerifiedDocument) => `doc|${alnum(d.country)}|${documentType(d.type)}|${alnum(d.number)}`;

/** The canonical text of a name with a birth date and nationality: what twins on paper share. */
export const nameBirthText = (n: NameBirth) =>
  `name|${n.fullName
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .sort()
    .join(" ")}|${n.birthDate}|${alnum(n.nationality ?? "")}`;

/** The text's hash under every configured key, newest first. */
export const identityHashes = (text: string) =>
  identityHashKeys().map(({ id, key }) => ({ keyId: id, hash: createHmac("sha256", key).update(text, "utf8").digest("hex") }));

/** Tests change the keys between cases. */
export function resetIdentityHashKeys(): void {
  cached = undefined;
}
