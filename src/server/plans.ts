import type { Plan } from "@/generated/prisma/enums.ts";

/** The plan catalog (GET /v1/billing/plans reads it; the plan rate limit enforces it). */
export const PLANS: Record<Plan, { id: Plan; name: string; limits: { requestsPerMinute: number }; priceUsdMonthly: number | null; selfServe: boolean }> = {
  builder: { id: "builder", name: "Builder", limits: { requestsPerMinute: 120 }, priceUsdMonthly: 0, selfServe: true },
  growth: { id: "growth", name: "Growth", limits: { requestsPerMinute: 600 }, priceUsdMonthly: 499, selfServe: true },
  institutional: { id: "institutional", name: "Institutional", limits: { requestsPerMinute: 3000 }, priceUsdMonthly: null, selfServe: false },
};

export const planLimitPerMinute = (plan: Plan) => PLANS[plan].limits.requestsPerMinute;
