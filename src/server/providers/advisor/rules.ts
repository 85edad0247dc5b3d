import type { Plan } from "@/generated/prisma/enums.ts";
import { PLAN_ORDER, PLANS } from "../../platform/plans";

export type AdviceInput = {
  question: string;
  expectedMonthlyVerifications?: number;
  expectedRequestsPerMinute?: number;
  needsSla?: boolean;
};

export type Advice = { plan: Plan; reasons: string[]; text: string };

/**
 * Words in a question that ask for what only a contract plan includes (an SLA, named support,
 * uncapped volume, paperwork). Features are not among them: every plan reaches every endpoint.
 */
const CONTRACT_SIGNALS = /\b(sla|uptime guarantee|dedicated support|named support|invoice|procurement|volume pricing|no cap|dpa review)\b/i;

const fmt = (n: number) => n.toLocaleString("en-US");

/**
 * The recommendation, computed from the plan catalog alone: the cheapest plan whose request rate
 * and included verifications cover the stated volumes, and Institutional when the caller needs
 * what only a contract gives. Deterministic, so the same question always gets the same plan.
 */
export function recommendPlan(input: AdviceInput): Advice {
  const rpm = input.expectedRequestsPerMinute ?? 0;
  const volume = input.expectedMonthlyVerifications ?? 0;
  const contract = !!input.needsSla || CONTRACT_SIGNALS.test(input.question);
  const reasons: string[] = [];
  let chosen: Plan = "institutional";
  for (const id of PLAN_ORDER) {
    const p = PLANS[id];
    const rateOk = p.limits.requestsPerMinute >= rpm;
    const volumeOk = p.verificationsPerMonth === null || p.verificationsPerMonth >= volume;
    const contractOk = !contract || !p.selfServe;
    if (rateOk && volumeOk && contractOk) {
      chosen = id;
      break;
    }
    if (!rateOk) reasons.push(`${p.name} allows ${fmt(p.limits.requestsPerMinute)} requests per minute, below your ${fmt(rpm)}.`);
    else if (!volumeOk)
      reasons.push(`${p.name} includes ${fmt(p.verificationsPerMonth!)} verifications a month, below your ${fmt(volume)}.`);
    else reasons.push(`${p.name} is self-serve and has no SLA or contract terms.`);
  }
  const p = PLANS[chosen];
  reasons.push(
    `${p.name} allows ${fmt(p.limits.requestsPerMinute)} requests per minute and ${
      p.verificationsPerMonth === null
        ? "verification volumes by contract"
        : `includes ${fmt(p.verificationsPerMonth)} verifications a month`
    }${p.priceUsdMonthly === null ? ", priced by sales" : p.priceUsdMonthly === 0 ? ", free" : `, at $${fmt(p.priceUsdMonthly)} a month`}.`,
  );
  if (!input.expectedMonthlyVerifications && !input.expectedRequestsPerMinute) {
    reasons.push("No volumes were given; state expectedMonthlyVerifications or expectedRequestsPerMinute for a sharper answer.");
  }
  return { plan: chosen, reasons, text: `We recommend ${p.name}. ${reasons.join(" ")}` };
}
