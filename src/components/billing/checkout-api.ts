export type CheckoutStatus = {
  sessionId: string;
  status: "awaiting_email" | "awaiting_payment" | "provisioned" | "sales_lead" | "expired";
  plan: string;
  purpose: "signup" | "upgrade";
  emailMasked: string;
  organizationId: string | null;
  revealAvailable: boolean;
  expiresAt?: string;
};

/**
 * An error answer of /v1, in the words of its envelope (`{ error: { code, message, details } }`),
 * with what a page needs to act on it: the status, the code and, for 425 and 429, `Retry-After`.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfterSec: number | null;

  constructor(message: string, status: number, code?: string, details?: Record<string, unknown>, retryAfterSec: number | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfterSec = retryAfterSec;
  }
}

type CallOptions = { idempotencyKey?: string };

/** Calls a public billing route; an error answer becomes an ApiError with the envelope's message. */
export async function billingCall<T>(path: string, body?: unknown, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (opts.idempotencyKey) headers["idempotency-key"] = opts.idempotencyKey;
  let res: Response;
  try {
    res = await fetch(path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
  } catch {
    throw new ApiError("The service could not be reached. Check your connection and try again.", 0);
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) {
    const retry = Number.parseInt(res.headers.get("retry-after") ?? "", 10);
    throw new ApiError(
      json?.error?.message ?? `The request failed (${res.status}).`,
      res.status,
      json?.error?.code,
      json?.error?.details,
      Number.isFinite(retry) && retry >= 0 ? retry : null,
    );
  }
  return json as T;
}

const inWords = (sec: number) =>
  sec < 90 ? `${sec} second${sec === 1 ? "" : "s"}` : `${Math.ceil(sec / 60)} minute${Math.ceil(sec / 60) === 1 ? "" : "s"}`;

/**
 * What to tell a person about a failed call: the server's own message, and for a 429 when to
 * try again (from Retry-After), for a wrong code how many attempts are left.
 */
export function errorText(e: unknown): string {
  if (!(e instanceof Error)) return "Something went wrong. Try again.";
  if (!(e instanceof ApiError)) return e.message;
  if (e.status === 429) {
    return e.retryAfterSec !== null ? `${e.message} You can try again in ${inWords(Math.max(1, e.retryAfterSec))}.` : e.message;
  }
  const left = e.details?.attemptsRemaining;
  if (e.code === "INVALID_CODE" && typeof left === "number") {
    return `${e.message} ${left === 0 ? "No attempts are left: ask for a new code." : `${left} attempt${left === 1 ? "" : "s"} left.`}`;
  }
  return e.message;
}

export const statusOf = (sessionId: string) => billingCall<CheckoutStatus>(`/v1/billing/checkout/${encodeURIComponent(sessionId)}`);

/**
 * Where the browser that started a checkout keeps its email proof: the reveal needs it, and it
 * must never enter a URL (the session id does, in the return URL). Per tab, gone with the tab.
 */
export const checkoutProofKey = (sessionId: string) => `bi-checkout-proof:${sessionId}`;

/** For the page that starts a checkout in the browser (/signup): keep the proof it spent for the return page. */
export function rememberCheckoutProof(sessionId: string, emailProofToken: string): void {
  sessionStorage.setItem(checkoutProofKey(sessionId), emailProofToken);
}

/** The proof kept by this tab for the checkout, or null (another browser, or a closed tab). */
export function checkoutProof(sessionId: string): string | null {
  try {
    return sessionStorage.getItem(checkoutProofKey(sessionId));
  } catch {
    // Storage switched off by the browser: as if this were another browser.
    return null;
  }
}

/** After the one reveal the proof unlocks nothing more; it need not linger. */
export function forgetCheckoutProof(sessionId: string): void {
  sessionStorage.removeItem(checkoutProofKey(sessionId));
}
