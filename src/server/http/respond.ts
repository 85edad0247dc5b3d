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
