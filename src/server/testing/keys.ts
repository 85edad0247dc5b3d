import { randomBytes } from "node:crypto";

/**
 * Key settings written the way docs/operations.md ("Settings") tells an operator to make them, so
 * tests run on the same forms production does: `openssl rand -base64 32` for the encryption and
 * hash keys (padded base64), `openssl rand 32 | basenc --base64url` for the issuer seed.
 */

/** What `basenc --base64url` writes for `bytes` (without its newline): base64url with its `=` padding. */
export const basencBase64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64").replace(/\+/g, "-").replace(/\//g, "_");

/** BI_ENCRYPTION_KEY, BI_HASH_KEY and BI_ISSUER_SIGNING_KEY of a fresh deployment, as documented. */
export function documentedKeys(): { BI_ENCRYPTION_KEY: string; BI_HASH_KEY: string; BI_ISSUER_SIGNING_KEY: string } {
  return {
    BI_ENCRYPTION_KEY: `k1:${randomBytes(32).toString("base64")}`,
    BI_HASH_KEY: randomBytes(32).toString("base64"),
    BI_ISSUER_SIGNING_KEY: basencBase64url(randomBytes(32)),
  };
}
