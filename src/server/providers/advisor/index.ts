import { type AdvisorConfig, advisorConfig } from "./config";
import { phraseAdvice } from "./openai";
import { type AdviceInput, recommendPlan } from "./rules";

export { type AdvisorConfig, advisorConfig } from "./config";
export { type AdviceInput, recommendPlan } from "./rules";

let cached: { config: AdvisorConfig } | undefined;

/** The environment's advisor configuration, read once per process. */
function configured(): AdvisorConfig {
  cached ??= { config: advisorConfig() };
  return cached.config;
}

/** The plan advice: rules decide, an optional model only phrases (source says which text you got). */
export async function advise(input: AdviceInput, config: AdvisorConfig = configured()) {
  const advice = recommendPlan(input);
  const phrased = config ? await phraseAdvice(config, input, advice) : null;
  return { advice, answer: phrased ?? advice.text, source: phrased ? ("model" as const) : ("rules" as const) };
}
