import { PLAN_ORDER, PLANS } from "../../platform/plans";

/** GET /v1/billing/plans: the catalog the plan quota also enforces. */
export async function listPlans() {
  return {
    plans: PLAN_ORDER.map((id) => {
      const p = PLANS[id];
      return {
        id: p.id,
        name: p.name,
        priceUsdMonthly: p.priceUsdMonthly,
        currency: "USD" as const,
        limits: p.limits,
        verificationsPerMonth: p.verificationsPerMonth,
        atVerificationCap: p.atVerificationCap,
        support: p.support,
        sla: p.sla,
        selfServe: p.selfServe,
        checkout: p.checkout,
        includes: p.includes,
      };
    }),
  };
}
