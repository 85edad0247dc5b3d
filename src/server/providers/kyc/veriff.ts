import { hmacSha256Hex } from "../../crypto/hash";
import type { VeriffConfig } from "./config";
import { KYB_NOT_SUPPORTED } from "./failover";
import { type CallEffect, type FetchFn, httpFailure, type ProviderAnswer, providerFetch, unreadable } from "./http";
import { type KycProvider, ProviderError } from "./types";
import { reviewFromVerification, VeriffDecision, verifyVeriffCallback } from "./veriff-review";

/**
 * Veriff (https://devdocs.veriff.com): X-AUTH-CLIENT carries the API key; X-HMAC-SIGNATURE is the
 * hex HMAC-SHA256 of the raw request body (POST) or of the session id (GET) with the shared
 * secret. A session is created with our person id as vendorData; the person verifies at
 * verification.url. Veriff has no levels (the integration decides the checks) and no KYB here.
 *
 * Veriff's public API takes no idempotency key and has no look-up of sessions by vendorData, so a
 * second POST /v1/sessions is a second session. Session creation is therefore repeated only when it cannot
 * have reached Veriff (the connection failed, or a 429 turned it away); after a timeout, a dropped
 * connection, a 5xx or an unreadable 2xx the failover moves on instead. A session made that way is
 * never handed out, and its callbacks match no session of ours, so they change no one's status.
 */
export type VeriffOptions = VeriffConfig & { timeoutMs: number; fetchFn?: FetchFn };

// Veriff sessions stay open for 7 days after creation.
const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

type VeriffErrorBody = { status?: unknown; code?: unknown };

export function veriffProvider(opts: VeriffOptions): KycProvider {
  const http = { provider: "veriff" as const, timeoutMs: opts.timeoutMs, fetchFn: opts.fetchFn };

  /** Veriff errors: {status: "fail", code: "1818", message}; only the code travels on. */
  const failure = (a: ProviderAnswer, effect: CallEffect) =>
    httpFailure("veriff", a, (a.json as VeriffErrorBody | null)?.code as string | number | undefined, effect);

  async function ok(method: "GET" | "POST", path: string, signed: string, body?: string, effect: CallEffect = {}): Promise<unknown> {
    const a = await providerFetch(
      http,
      opts.apiUrl + path,
      {
        method,
        headers: {
          accept: "application/json",
          "content-type": "application/json",
          "x-auth-client": opts.apiKey,
          "x-hmac-signature": hmacSha256Hex(opts.sharedSecret, signed),
        },
        body,
      },
      effect,
    );
    if (a.status < 200 || a.status > 299) throw failure(a, effect);
    return a.json;
  }

  return {
    name: "veriff",
    supportsKyb: false,
    async startKyc(input) {
      // verification.callback is where Veriff sends the person back, not the webhook (that is set in Veriff's portal).
      const body = JSON.stringify({
        verification: { callback: input.redirectUrl ?? `${input.publicUrl.replace(/\/+$/, "")}/identity`, vendorData: input.externalId },
      });
      const creates: CallEffect = { creates: true };
      const res = (await ok("POST", "/v1/sessions", body, body, creates)) as {
        verification?: { id?: unknown; url?: unknown; sessionToken?: unknown };
      } | null;
      const v = res?.verification;
      if (typeof v?.id !== "string" || typeof v.url !== "string" || typeof v.sessionToken !== "string")
        throw unreadable("veriff", "session", creates);
      return {
        provider: "veriff",
        applicantId: v.id,
        verificationUrl: v.url,
        accessToken: v.sessionToken,
        expiresAt: new Date(Date.now() + SESSION_TTL_MS),
      };
    },
    async fetchReview(applicantId, externalId) {
      const parsed = VeriffDecision.safeParse(await ok("GET", `/v1/sessions/${encodeURIComponent(applicantId)}/decision`, applicantId));
      if (!parsed.success) throw unreadable("veriff", "decision");
      const v = parsed.data.verification;
      // No decision yet: the session exists and the person has not finished (or Veriff is still deciding).
      if (!v)
        return {
          provider: "veriff",
          applicantId,
          externalId,
          status: "pending",
          labels: [],
          pep: false,
          sanctions: false,
          country: null,
          identity: {},
          reviewedAt: null,
        };
      return reviewFromVerification(v, externalId);
    },
    async startKyb() {
      throw new ProviderError("permanent", "veriff", "veriff does not verify companies in this product", undefined, KYB_NOT_SUPPORTED);
    },
    verifyCallback: (rawBody, headers) => verifyVeriffCallback(rawBody, headers, opts.sharedSecret, opts.apiKey),
  };
}
