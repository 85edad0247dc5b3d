import { PLANS } from "../../platform/plans";
import { type AdviceInput, advise } from "../../providers/advisor";
import { limitPublicCall, type PublicContext } from "./public";

/** POST /v1/billing/ai/advise: a recommended plan with its reasons (rate limited per client IP). */
export async function advisePlan(pub: PublicContext, input: AdviceInput) {
  await limitPublicCall(pub);
  const { advice, answer, source } = await advise(input);
  const p = PLANS[advice.plan];
  return {
    recommendedPlan: {
      id: p.id,
      name: p.name,
      priceUsdMonthly: p.priceUsdMonthly,
      limits: p.limits,
      verificationsPerMonth: p.verificationsPerMonth,
    },
    reasons: advice.reasons,
    answer,
    source,
  };
}
