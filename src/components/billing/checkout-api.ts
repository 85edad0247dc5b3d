export type CheckoutStatus = {
  sessionId: string;
  status: "awaiting_email" | "awaiting_payment" | "provisioned" | "sales_lead" | "expired";
  plan: string;
  purpose: "signup" | "upgrade";
  emailMasked: string;
  organizationId: string | null;
  revealAvailable: boolean;
};

/** Calls a public billing route; an error answer becomes an Error with the envelope's message. */
export async function billingCall<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(
    path,
    body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
  );
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(json?.error?.message ?? `The request failed (${res.status}).`);
  return json as T;
}

export const statusOf = (sessionId: string) => billingCall<CheckoutStatus>(`/v1/billing/checkout/${encodeURIComponent(sessionId)}`);

/**
 * Where the browser that started a checkout keeps its email proof: the reveal needs it, and it
 * must never enter a URL (the session id does, in the return URL). Per tab, gone with the tab.
 */
export const checkoutProofKey = (sessionId: string) => `bi-checkout-proof:${sessionId}`;

/**
 * For the page that starts a checkout in the browser: keep the proof it spent for the return page.
 * @public
 */
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
