import { AppError } from "../../errors";

export type FetchFn = typeof fetch;

/** A node's refusal: the chain understood the request and said no. */
export type ChainRejection = { name: string; code: number | null; status: number; detail: string };

export type ChainResult<T = unknown> = { ok: true; body: T } | { ok: false; rejection: ChainRejection };

// Chain errors that say "not now" rather than "no": worth a retry with backoff.
const TRANSIENT = new Set([
  "deadline_exception",
  "leeway_deadline_exception",
  "tx_cpu_usage_exceeded",
  "greylist_cpu_usage_exceeded",
  "expired_tx_exception",
]);

const unavailable = (message = "The chain node is unavailable; retry with backoff.", retryAfterSec?: number) =>
  new AppError("PROVIDER_UNAVAILABLE", message, retryAfterSec ? { retryAfterSec } : undefined);

/** nodeos answers `{code, message, error: {code, name, what, details: [{message}]}}`. */
function readRejection(status: number, body: unknown): ChainRejection | null {
  if (!body || typeof body !== "object") return null;
  const err = (body as { error?: unknown }).error;
  if (!err || typeof err !== "object") {
    const message = (body as { message?: unknown }).message;
    return status < 500 && typeof message === "string" ? { name: "http_error", code: null, status, detail: message } : null;
  }
  const e = err as { name?: unknown; code?: unknown; what?: unknown; details?: unknown };
  const details = Array.isArray(e.details)
    ? e.details.map((d) => (d && typeof d === "object" ? String((d as { message?: unknown }).message ?? "") : "")).join("; ")
    : "";
  return {
    name: typeof e.name === "string" && /^[a-z0-9_]{1,64}$/.test(e.name) ? e.name : "exception",
    code: typeof e.code === "number" ? e.code : null,
    status,
    detail: `${typeof e.what === "string" ? e.what : ""} ${details}`.trim(),
  };
}

const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * POSTs JSON to a chain API. Transport failures, timeouts, 429 and 5xx without a chain error
 * body throw PROVIDER_UNAVAILABLE; a chain error comes back as a rejection for the caller to map.
 */
export async function chainPost<T>(fetchFn: FetchFn, url: string, body: unknown, timeoutMs: number): Promise<ChainResult<T>> {
  let res: Response;
  let text: string;
  try {
    res = await fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    const failure = unavailable("The chain node could not be reached; retry with backoff.");
    // Refused before a connection existed: nothing reached the node. A timeout or a dropped
    // connection may have delivered the request, so whether it took effect is not known.
    const code = (err as { cause?: { code?: string } })?.cause?.code;
    if (!code || !NEVER_SENT.has(code)) failure.outcomePending = true;
    throw failure;
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.status === 429) {
    const retry = Number(res.headers.get("retry-after"));
    throw unavailable("The chain node is rate limiting; retry with backoff.", Number.isInteger(retry) && retry > 0 ? retry : undefined);
  }
  if (res.ok) {
    if (json === undefined) throw new AppError("PROVIDER_FAILURE", "The chain node sent an unreadable answer.");
    return { ok: true, body: json as T };
  }
  const rejection = readRejection(res.status, json);
  if (!rejection || TRANSIENT.has(rejection.name)) throw unavailable();
  return { ok: false, rejection };
}

/** The rejection as the client sees it: the chain's error name, never its text (it may quote keys). */
export function rejected(r: ChainRejection, what: string): AppError {
  return new AppError("PROVIDER_FAILURE", `The chain rejected the ${what} (${r.name}).`, {
    chainError: r.name,
    ...(r.code !== null ? { chainErrorCode: r.code } : {}),
  });
}

/** Unwraps a result, turning a rejection into PROVIDER_FAILURE. */
export function orFail<T>(result: ChainResult<T>, what: string): T {
  if (!result.ok) throw rejected(result.rejection, what);
  return result.body;
}
