/**
 * Browser calls to the public /v1 billing routes of the pricing page. Types are written here, with
 * the fields the page reads; the catalog's newer fields are optional so an older server still renders.
 */
export type CatalogPlan = {
  id: string;
  name: string;
  priceUsdMonthly: number | null;
  currency: string;
  limits: { requestsPerMinute: number };
  verificationsPerMonth: number | null;
  selfServe: boolean;
  checkout: "instant" | "payment" | "sales";
  includes: string[];
  support?: string;
  sla?: string | null;
  atVerificationCap?: string;
};

export type AdviceAnswer = {
  recommendedPlan: {
    id: string;
    name: string;
    priceUsdMonthly: number | null;
    limits: { requestsPerMinute: number };
    verificationsPerMonth: number | null;
  };
  reasons: string[];
  answer: string;
  /** rules: the catalog's own text; model: the same recommendation phrased by the configured model. */
  source?: "rules" | "model";
};

/** An error answer of /v1, in the envelope's words; `retryAfterSec` for a 429. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterSec: number | null,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError("The service could not be reached. Check your connection and try again.", 0, null);
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) {
    const header = Number(res.headers.get("retry-after"));
    const detail = Number(json?.error?.details?.retryAfterSec);
    const retryAfterSec = res.status === 429 ? (header > 0 ? header : detail > 0 ? detail : 60) : null;
    throw new ApiError(json?.error?.message ?? `The request failed (HTTP ${res.status}).`, res.status, retryAfterSec);
  }
  return json as T;
}

export const fetchPlans = () => call<{ plans: CatalogPlan[] }>("/v1/billing/plans").then((r) => r.plans);

export const askAdvisor = (input: {
  question: string;
  expectedMonthlyVerifications?: number;
  expectedRequestsPerMinute?: number;
  needsSla?: boolean;
}) =>
  call<AdviceAnswer>("/v1/billing/ai/advise", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(input),
  });

/** "$499", "Free" (0) or "Talk to sales" (null: priced by sales). */
export function priceLabel(price: number | null, currency = "USD"): string {
  if (price === null) return "Talk to sales";
  if (price === 0) return "Free";
  return new Intl.NumberFormat("en-US", { style: "currency", currency, minimumFractionDigits: 0, maximumFractionDigits: 2 }).format(price);
}

export const fmtCount = (n: number) => n.toLocaleString("en-US");

/** Where a plan's button goes and what it says, from the catalog's own `checkout` field. */
export function planAction(p: Pick<CatalogPlan, "id" | "name" | "checkout" | "priceUsdMonthly">): { href: string; label: string } {
  const href = `/signup?plan=${encodeURIComponent(p.id)}`;
  if (p.checkout === "sales") return { href, label: "Talk to sales" };
  if (p.checkout === "instant" && p.priceUsdMonthly === 0) return { href, label: "Start free" };
  return { href, label: `Start with ${p.name}` };
}
