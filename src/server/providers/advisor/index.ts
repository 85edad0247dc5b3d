import { advisorConfig, type AdvisorConfig } from "./config";
import { phraseAdvice } from "./openai";
import { recommendPlan, type AdviceInput } from "./rules";

export { advisorConfig, type AdvisorConfig } from "./config";
export { recommendPlan, type Advice, type AdviceInput } from "./rules";

let cached: { config: AdvisorConfig } | undefined;

/** The plan advice: rules decide, an optional model only phrases (source says which text you got). */
export async function advise(input: AdviceInput, config: AdvisorConfig = (cached ??= { config: advisorConfig() }).config) {
  const advice = recommendPlan(input);
  const phrased = config ? await phraseAdvice(config, input, advice) : null;
  return { advice, answer: phrased ?? advice.text, source: phrased ? ("model" as const) : ("rules" as const) };
}

/** Tests change ADVISOR_* between cases; production code never calls this. */
export function resetAdvisorCache(): void {
  cached = undefined;
}
