/**
 * The console's sign-in and invitation steps (/api/auth/*, beside next-auth's routes): JSON in,
 * JSON out, errors in the /v1 envelope. Browser code: imports nothing of the server.
 */
export class AuthStepError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly reason?: string,
    readonly retryAfterSec: number | null = null,
  ) {
    super(message);
    this.name = "AuthStepError";
  }
}

/** "3 minutes", "45 seconds": a wait in words. */
export function waitInWords(sec: number) {
  if (sec < 90) return `${sec} second${sec === 1 ? "" : "s"}`;
  const min = Math.ceil(sec / 60);
  return `${min} minute${min === 1 ? "" : "s"}`;
}

/** The sentence for a refused attempt: a 429 says when to try again. */
export function tooManyAttempts(retryAfterSec: number | null) {
  return retryAfterSec
    ? `Too many failed attempts. Try again in ${waitInWords(retryAfterSec)}.`
    : "Too many failed attempts. Wait a few minutes and try again.";
}

export async function authStep<T>(path: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    throw new AuthStepError("The console could not be reached. Check your connection and try again.", 0);
  }
  const json = await res.json().catch(() => null);
  if (res.ok) return json as T;
  const retry = Number.parseInt(res.headers.get("retry-after") ?? "", 10);
  const retryAfterSec = Number.isFinite(retry) && retry > 0 ? retry : null;
  const message = res.status === 429 ? tooManyAttempts(retryAfterSec) : (json?.error?.message ?? `The request failed (${res.status}).`);
  throw new AuthStepError(message, res.status, json?.error?.details?.reason, retryAfterSec);
}

/** A WebAuthn ceremony the person cancelled or that timed out, in words. */
export function passkeyErrorText(err: unknown) {
  const name = err instanceof Error ? err.name : "";
  if (name === "NotAllowedError" || name === "AbortError") return "The passkey request was cancelled or timed out. Try again.";
  if (name === "InvalidStateError") return "This device already holds a passkey for this account.";
  if (err instanceof AuthStepError) return err.message;
  return "This browser could not use a passkey. Try again, or use a password and authenticator code.";
}
