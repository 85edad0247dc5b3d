import { ProviderError, type ProviderName } from "./types";

export type FetchFn = typeof fetch;

/** What a provider answered: status, headers and the body parsed as JSON (null when it is not JSON). */
export type ProviderAnswer = { status: number; headers: Headers; json: unknown };

export type ProviderHttp = {
  provider: ProviderName;
  timeoutMs: number;
  fetchFn?: FetchFn;
};

/**
 * What a call does at the provider, for deciding whether a failed one may be repeated. `creates`:
 * it makes something the provider cannot recognise as a repeat (a Veriff session), so once the
 * request may have reached the provider, repeating it could make a second one.
 */
export type CallEffect = { creates?: boolean };

const MAX_RETRY_AFTER_SEC = 86_400;

// Failures before a connection exists: no byte of the request can have reached the provider.
const BEFORE_SENDING = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

const codeOf = (e: unknown) => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

/**
 * Whether fetch failed before sending anything. Undici puts the socket error in `cause` (an
 * AggregateError when every address of the host was tried); anything it does not name as a
 * connection failure, a timeout included, counts as possibly sent.
 */
function neverSent(err: unknown): boolean {
  const cause = (err as { cause?: unknown } | null)?.cause;
  const codes = cause instanceof AggregateError ? cause.errors.map(codeOf) : [codeOf(cause)];
  return codes.length > 0 && codes.every((c) => c !== undefined && BEFORE_SENDING.has(c));
}

/**
 * Retry-After as whole seconds: either delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Absent,
 * unparseable, past or absurd (over a day) values give undefined rather than a window we would report.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    return n > 0 && n <= MAX_RETRY_AFTER_SEC ? n : undefined;
  }
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  const sec = Math.ceil((at - now) / 1000);
  return sec > 0 && sec <= MAX_RETRY_AFTER_SEC ? sec : undefined;
}

/**
 * One HTTP call to a provider. Network failures and timeouts become transient ProviderErrors;
 * any HTTP answer comes back for the adapter to classify, since each provider has its own error shape.
 * Redirects are refused: a signed request must not be replayed to another host.
 */
export async function providerFetch(http: ProviderHttp, url: string, init: RequestInit, effect: CallEffect = {}): Promise<ProviderAnswer> {
  const signal = AbortSignal.timeout(http.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await (http.fetchFn ?? fetch)(url, { ...init, signal, redirect: "error" });
    text = await res.text();
  } catch (err) {
    throw new ProviderError(
      "transient",
      http.provider,
      `${http.provider} ${signal.aborted ? "timed out" : "could not be reached"}`,
      undefined,
      signal.aborted ? "timeout" : "network",
      !effect.creates || (!signal.aborted && neverSent(err)),
    );
  }
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json };
}

/** Whether a provider's own error code can travel on as ours: short, and nothing a log or an API answer should not carry. */
export const isCode = (code: unknown): code is string | number =>
  (typeof code === "string" || typeof code === "number") && /^[A-Za-z0-9_.-]{1,64}$/.test(String(code));

/**
 * The common part of classifying an HTTP failure: 408, 429 and 5xx are "not now" (transient, with
 * the provider's Retry-After); any other 4xx is "no" (permanent). `code` is the provider's own
 * error code when its body carries one; messages never include the provider's text. A 5xx (or a
 * 408) to a call that `creates` is not repeatable: the provider may have acted before failing. A
 * 429 is: the provider turned the call away before doing anything.
 */
export function httpFailure(
  provider: ProviderName,
  answer: ProviderAnswer,
  code?: string | number | null,
  effect: CallEffect = {},
): ProviderError {
  const providerCode = isCode(code) ? String(code) : `http_${answer.status}`;
  const transient = answer.status === 408 || answer.status === 429 || answer.status >= 500;
  return new ProviderError(
    transient ? "transient" : "permanent",
    provider,
    `${provider} answered HTTP ${answer.status} (${providerCode})`,
    transient ? parseRetryAfter(answer.headers.get("retry-after")) : undefined,
    providerCode,
    !effect.creates || !transient || answer.status === 429,
  );
}

/**
 * A 2xx whose body is not what the API documents: transient, since a proxy or a partial answer is
 * more likely than a refusal; not repeatable for a call that `creates`, since a 2xx means it did.
 */
export const unreadable = (provider: ProviderName, what: string, effect: CallEffect = {}) =>
  new ProviderError("transient", provider, `${provider} sent an unreadable ${what}`, undefined, "unreadable_answer", !effect.creates);
