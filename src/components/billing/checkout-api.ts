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
