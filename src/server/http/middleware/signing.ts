import { constantTimeEqual, hmacSha256Hex, sha256Hex } from "../../crypto/hash";
import { open } from "../../crypto/secret-box";
import { unauthorized } from "../../errors";
import type { Middleware } from "../types";

export const SIGNATURE_SKEW_MS = 5 * 60 * 1000;

/** Version 1, the contract's: `{timestampMs}.{METHOD}.{path}.{sha256hex(rawBody)}`, the path without its query. */
export const canonicalString = (timestampMs: string, method: string, path: string, rawBody: Uint8Array | string) =>
  `${timestampMs}.${method.toUpperCase()}.${path}.${sha256Hex(rawBody)}`;

/**
 * Version 2 (`X-BI-Signature-Version: 2`): the same string over the request target as sent, path
 * and query (`/v1/x?a=1`), so the query cannot be changed under a valid signature either.
 */
export const canonicalStringV2 = (timestampMs: string, method: string, target: string, rawBody: Uint8Array | string) =>
  canonicalString(timestampMs, method, target, rawBody);

/**
 * HMAC request signing, when the organization has enabled it: checks the signature (part of
 * authentication, so before the scope check) without spending it; `spendSignature` records it
 * once the request is authorised.
 */
export function requestSigning(now: () => number = Date.now): Middleware {
  return async (state, next) => {
    const org = state.org;
    if (!org?.signingEnabled) return next();
    // Signing on without a stored secret can only be a broken state: refuse rather than let unsigned requests in.
    if (!org.signingSecretEnc)
      throw unauthorized("signature_required", "Request signing is enabled but not set up; enable it again to get a secret.");
    const ts = state.req.headers.get("x-bi-timestamp");
    const sig = state.req.headers.get("x-bi-signature");
    if (!ts || !sig)
      throw unauthorized("signature_required", "This organization requires signed requests: send X-BI-Timestamp and X-BI-Signature.");
    if (!/^\d{1,16}$/.test(ts)) throw unauthorized("invalid_timestamp", "X-BI-Timestamp must be Unix time in milliseconds.");
    if (Math.abs(now() - Number(ts)) > SIGNATURE_SKEW_MS) {
      throw unauthorized("timestamp_skew", "X-BI-Timestamp is more than 5 minutes from server time.");
    }
    const version = state.req.headers.get("x-bi-signature-version")?.trim() ?? "1";
    if (version !== "1" && version !== "2") throw unauthorized("invalid_signature_version", "X-BI-Signature-Version must be 1 or 2.");
    const target = version === "2" && state.req.rawQuery ? `${state.req.path}?${state.req.rawQuery}` : state.req.path;
    const expected = hmacSha256Hex(open(org.signingSecretEnc), canonicalString(ts, state.req.method, target, state.req.body));
    if (!constantTimeEqual(expected, sig.trim().toLowerCase())) throw unauthorized("invalid_signature", "Invalid request signature.");
    state.signature = { value: expected, expiresAt: new Date(Number(ts) + 2 * SIGNATURE_SKEW_MS) };
    return next();
  };
}

/**
 * Records the checked signature under a unique key, so a replay is refused on every instance.
 * Runs after the scope check: a request refused for its scope has spent nothing.
 */
export function spendSignature(): Middleware {
  return async (state, next) => {
    if (!state.signature || !state.org) return next();
    const inserted = await state.db.$executeRaw`
      INSERT INTO used_signatures ("orgId", signature, "expiresAt")
      VALUES (${state.org.id}::uuid, ${state.signature.value}, ${state.signature.expiresAt})
      ON CONFLICT DO NOTHING`;
    if (inserted === 0) throw unauthorized("signature_replayed", "This request signature was already used; sign each request afresh.");
    return next();
  };
}
