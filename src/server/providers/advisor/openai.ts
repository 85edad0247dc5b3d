import { PLANS } from "../../platform/plans";
import type { AdvisorConfig } from "./config";
import type { Advice, AdviceInput } from "./rules";

const MAX_ANSWER_CHARS = 1500;

/**
 * Asks an OpenAI-compatible chat completion endpoint to phrase the rules' recommendation for the
 * question. It can only reword: the plan is fixed by the rules, an answer that does not name that
 * plan is discarded, and any error or timeout returns null so the caller keeps the rules' text.
 */
export async function phraseAdvice(config: NonNullable<AdvisorConfig>, input: AdviceInput, advice: Advice): Promise<string | null> {
  const plan = PLANS[advice.plan];
  const body = {
    model: config.model,
    temperature: 0.2,
    max_tokens: 300,
    messages: [
      {
        role: "system",
        content:
          "You phrase plan recommendations for an identity verification API. The recommended plan and the reasons are decided; " +
          "do not recommend any other plan, do not invent prices or limits, answer in at most four sentences, and name the recommended plan.",
      },
      {
        role: "user",
        content: JSON.stringify({ question: input.question.slice(0, 2000), recommendedPlan: plan.name, reasons: advice.reasons }),
      },
    ],
  };
  try {
    const res = await fetch(`${config.apiUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(config.timeoutMs),
      redirect: "error",
    });
    if (!res.ok) return null;
    const json = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
    const text = json.choices?.[0]?.message?.content;
    if (typeof text !== "string") return null;
    const trimmed = text.trim();
    if (!trimmed || trimmed.length > MAX_ANSWER_CHARS || !trimmed.toLowerCase().includes(plan.name.toLowerCase())) return null;
    return trimmed;
  } catch {
    return null;
  }
}
