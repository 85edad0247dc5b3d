import type { Plan } from "@/generated/prisma/enums.ts";

export type PlanLimits = {
  /** Authenticated requests per minute, per organization (the plan quota of the /v1 pipeline). */
  requestsPerMinute: number;
};

export type PlanEntry = {
  id: Plan;
  name: string;
  limits: PlanLimits;
  /** KYC verifications included per calendar month; null = by contract. */
  verificationsPerMonth: number | null;
  /** Monthly price in US dollars; null = quoted by sales. */
  priceUsdMonthly: number | null;
  /** Bought through checkout (true) or through sales (false). */
  selfServe: boolean;
  /** How checkout settles it: provisioned at once, paid (card or chain), or a sales lead. */
  checkout: "instant" | "payment" | "sales";
  includes: string[];
};

/**
 * The one plan catalog: GET /v1/billing/plans shows it, the plan quota of the pipeline enforces
 * its `limits.requestsPerMinute`, checkout reads `checkout`, and the advisor's rules read the
 * limits. Change a plan here and every one of them follows.
 */
export const PLANS: Record<Plan, PlanEntry> = {
  builder: {
    id: "builder",
    name: "Builder",
    limits: { requestsPerMinute: 120 },
    verificationsPerMonth: 100,
    priceUsdMonthly: 0,
    selfServe: true,
    checkout: "instant",
    includes: [
      "Sandbox and production API keys",
      "Sponsored free chain accounts",
      "Email and phone one-time codes",
      "KYC and wallet-signed binding",
      "Hash-chained audit log and exports",
      "Community support",
    ],
  },
  growth: {
    id: "growth",
    name: "Growth",
    limits: { requestsPerMinute: 600 },
    verificationsPerMonth: 5000,
    priceUsdMonthly: 499,
    selfServe: true,
    checkout: "payment",
    includes: [
      "Everything in Builder",
      "Sanctions and PEP screening with the AML case queue",
      "Outbound webhooks with replay",
      "HMAC request signing and IP allowlists",
      "Email support within one business day",
    ],
  },
  institutional: {
    id: "institutional",
    name: "Institutional",
    limits: { requestsPerMinute: 3000 },
    verificationsPerMonth: null,
    priceUsdMonthly: null,
    selfServe: false,
    checkout: "sales",
    includes: [
      "Everything in Growth",
      "Four-eyes AML clearing and KYB",
      "Volume pricing for verifications",
      "Uptime SLA and a named support contact",
      "Data processing agreement review",
    ],
  },
};

export const PLAN_ORDER: readonly Plan[] = ["builder", "growth", "institutional"];

export const planLimitPerMinute = (plan: Plan) => PLANS[plan].limits.requestsPerMinute;
