import { ProviderError, type ProviderName } from "./types";

export type FetchFn = typeof fetch;

/** What a provider answered: status, headers and the body parsed as JSON (null when it is not JSON). */
export type ProviderAnswer = { status: number; headers: Headers; json: unknown };

export type ProviderHttp = {
  provider: ProviderName;
  timeoutMs: number;
  fetchFn?: FetchFn;
};

const MAX_RETRY_AFTER_SEC = 86_400;

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
export async function providerFetch(http: ProviderHttp, url: string, init: RequestInit): Promise<ProviderAnswer> {
  const signal = AbortSignal.timeout(http.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await (http.fetchFn ?? fetch)(url, { ...init, signal, redirect: "error" });
    text = await res.text();
  } catch {
    throw new ProviderError(
      "transient",
      http.provider,
      `${http.provider} ${signal.aborted ? "timed out" : "could not be reached"}`,
      undefined,
      signal.aborted ? "timeout" : "network",
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

/**
 * The common part of classifying an HTTP failure: 408, 429 and 5xx are "not now" (transient, with
 * the provider's Retry-After); any other 4xx is "no" (permanent). `code` is the provider's own
 * error code when its body carries one; messages never include the provider's text.
 */
export function httpFailure(provider: ProviderName, answer: ProviderAnswer, code?: string | number | null): ProviderError {
  const providerCode =
    code !== undefined && code !== null && /^[A-Za-z0-9_.-]{1,64}$/.test(String(code)) ? String(code) : `http_${answer.status}`;
  const transient = answer.status === 408 || answer.status === 429 || answer.status >= 500;
  return new ProviderError(
    transient ? "transient" : "permanent",
    provider,
    `${provider} answered HTTP ${answer.status} (${providerCode})`,
    transient ? parseRetryAfter(answer.headers.get("retry-after")) : undefined,
    providerCode,
  );
}

/** A 2xx whose body is not what the API documents: transient, since a proxy or a partial answer is more likely than a refusal. */
export const unreadable = (provider: ProviderName, what: string) =>
  new ProviderError("transient", provider, `${provider} sent an unreadable ${what}`, undefined, "unreadable_answer");
