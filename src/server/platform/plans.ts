import type { Plan } from "@/generated/prisma/enums.ts";

export type PlanLimits = {
  /** Authenticated requests per minute, per organization (the plan quota of the /v1 pipeline). */
  requestsPerMinute: number;
};

export type PlanEntry = {
  id: Plan;
  name: string;
  limits: PlanLimits;
  /** KYC verifications per calendar month (UTC); null = no monthly cap, volume by contract. */
  verificationsPerMonth: number | null;
  /** What happens when the month's verifications are used up (enforced by services/kyc). */
  atVerificationCap: string;
  /** Who answers and how fast. */
  support: string;
  /** The uptime commitment, or null where there is none. */
  sla: string | null;
  /** Monthly price in US dollars; null = quoted by sales. */
  priceUsdMonthly: number | null;
  /** Bought through checkout (true) or through sales (false). */
  selfServe: boolean;
  /** How checkout settles it: provisioned at once, paid (card or chain), or a sales lead. */
  checkout: "instant" | "payment" | "sales";
  /** What the plan includes: every plan reaches every endpoint; the lines say so and what differs. */
  includes: string[];
};

/** Every plan reaches every endpoint of the API; plans differ in limits, volume, support and SLA. */
const EVERY_ENDPOINT = [
  "Every API endpoint: free accounts, contact codes, KYC and KYB, wallet-signed binding and credentials",
  "Sanctions and PEP screening, the AML case queue and four-eyes clearing",
  "Webhooks with replay, HMAC request signing, IP allowlists",
  "Hash-chained audit log with signed exports",
];

const fmt = (n: number) => n.toLocaleString("en-US");

/** A plan with its `includes` written from its own fields, so no number is stated twice. */
function plan(p: Omit<PlanEntry, "includes">, extra: string[] = []): PlanEntry {
  return {
    ...p,
    includes: [
      ...EVERY_ENDPOINT,
      `${fmt(p.limits.requestsPerMinute)} requests a minute`,
      p.verificationsPerMonth === null
        ? "Verification volume by contract, no monthly cap"
        : `${fmt(p.verificationsPerMonth)} KYC verifications a month`,
      p.support,
      ...(p.sla ? [`Uptime SLA: ${p.sla}`] : []),
      ...extra,
    ],
  };
}

const CAP_REFUSED = "New KYC verifications are refused until the 1st of next month (UTC)";

/**
 * The one plan catalog: GET /v1/billing/plans shows it, the plan quota of the pipeline enforces
 * its `limits.requestsPerMinute`, KYC start enforces `verificationsPerMonth`, checkout reads
 * `checkout`, and the advisor's rules read the limits. Change a plan here and every one of them follows.
 */
export const PLANS: Record<Plan, PlanEntry> = {
  builder: plan({
    id: "builder",
    name: "Builder",
    limits: { requestsPerMinute: 120 },
    verificationsPerMonth: 100,
    atVerificationCap: `${CAP_REFUSED}; upgrading to Growth lifts the cap at once.`,
    support: "Community support",
    sla: null,
    priceUsdMonthly: 0,
    selfServe: true,
    checkout: "instant",
  }),
  growth: plan({
    id: "growth",
    name: "Growth",
    limits: { requestsPerMinute: 600 },
    verificationsPerMonth: 5000,
    atVerificationCap: `${CAP_REFUSED}; Institutional has no monthly cap.`,
    support: "Email support, answered within one business day",
    sla: null,
    priceUsdMonthly: 499,
    selfServe: true,
    checkout: "payment",
  }),
  institutional: plan(
    {
      id: "institutional",
      name: "Institutional",
      limits: { requestsPerMinute: 3000 },
      verificationsPerMonth: null,
      atVerificationCap: "No monthly cap: every verification is counted and invoiced at the contract's volume price.",
      support: "A named support contact; incidents answered within one hour, around the clock",
      sla: "99.9% monthly uptime, with service credits set in the contract",
      priceUsdMonthly: null,
      selfServe: false,
      checkout: "sales",
    },
    ["Data processing agreement review"],
  ),
};

export const PLAN_ORDER: readonly Plan[] = ["builder", "growth", "institutional"];

export const planLimitPerMinute = (plan: Plan) => PLANS[plan].limits.requestsPerMinute;
