import { AppError, errorEnvelope, isAppError } from "../errors";
import type { HttpResponse, PipelineState } from "./types";

export function jsonResponse(state: PipelineState, status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    status,
    headers: { ...state.headers, "content-type": "application/json; charset=utf-8", ...headers },
    body: body === undefined ? "" : JSON.stringify(body),
  };
}

/** Turns anything thrown into the documented envelope; a non-AppError becomes a 500 that leaks nothing. */
export function errorResponse(state: PipelineState, err: unknown): HttpResponse {
  let appErr: AppError;
  if (isAppError(err)) {
    appErr = err;
  } else {
    state.log.error(
      { err: { name: (err as Error)?.name, message: (err as Error)?.message, stack: (err as Error)?.stack } },
      "unhandled error",
    );
    appErr = new AppError("INTERNAL");
  }
  return jsonResponse(state, appErr.status, errorEnvelope(appErr, state.correlationId), appErr.headers);
}

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included): answer 304. */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const v = t.trim();
    return v === "*" || v === etag || v === `W/${etag}`;
  });
}

/**
 * The offered media type an Accept header prefers (RFC 9110 §12.5.1): the highest q-value, then
 * the most specific range that matched it (the exact type, then its type with any subtype, then
 * any type), then the order of `offers`, whose first is the default. No Accept header gives the
 * default; a header that accepts none of the offers gives null.
 */
export function preferredMediaType(accept: string | null, offers: string[]): string | null {
  if (!accept?.trim()) return offers[0] ?? null;
  const ranges = accept.split(",").flatMap((part) => {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!range || !/^[^/\s]+\/[^/\s]+$/.test(range)) return [];
    const qParam = params.find((p) => /^q\s*=/.test(p));
    const q = qParam ? Number(qParam.slice(qParam.indexOf("=") + 1).trim()) : 1;
    return Number.isFinite(q) && q >= 0 && q <= 1 ? [{ range, q }] : [];
  });
  let best: { offer: string; q: number; specificity: number } | null = null;
  for (const offer of offers) {
    const [type] = offer.split("/");
    // The most specific range that matches the offer decides its q-value (RFC 9110 §12.5.1).
    const matched = ranges
      .map((r) => ({ ...r, specificity: r.range === offer ? 2 : r.range === `${type}/*` ? 1 : r.range === "*/*" ? 0 : -1 }))
      .filter((r) => r.specificity >= 0)
      .sort((a, b) => b.specificity - a.specificity)[0];
    if (!matched || matched.q === 0) continue;
    if (!best || matched.q > best.q || (matched.q === best.q && matched.specificity > best.specificity)) {
      best = { offer, q: matched.q, specificity: matched.specificity };
    }
  }
  return best?.offer ?? null;
}
