import { z } from "zod";
import { env } from "@/env";

/** The optional OpenAI-compatible endpoint that phrases advice; null when not configured. */
export type AdvisorConfig = { apiUrl: string; apiKey?: string; model: string; timeoutMs: number } | null;

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/** Parses ADVISOR_*; throws one error naming every bad variable (never ADVISOR_API_KEY's value). */
export function advisorConfig(
  source: Record<string, string | undefined> = process.env,
  environment: "sandbox" | "production" = env().BI_ENV,
): AdvisorConfig {
  const e = z
    .object({ ADVISOR_API_URL: optional, ADVISOR_API_KEY: optional, ADVISOR_MODEL: optional, ADVISOR_TIMEOUT_MS: optional })
    .parse(source);
  const issues: string[] = [];
  if (!e.ADVISOR_API_URL) {
    if (e.ADVISOR_API_KEY || e.ADVISOR_MODEL) issues.push("ADVISOR_API_URL: is required when ADVISOR_API_KEY or ADVISOR_MODEL is set");
    if (issues.length) throw invalid(issues);
    return null;
  }
  if (!z.url({ protocol: /^https?$/ }).safeParse(e.ADVISOR_API_URL).success) issues.push("ADVISOR_API_URL: must be an http(s) URL");
  else if (environment === "production" && !e.ADVISOR_API_URL.startsWith("https:"))
    issues.push("ADVISOR_API_URL: must be https when BI_ENV=production");
  if (!e.ADVISOR_MODEL) issues.push("ADVISOR_MODEL: is required when ADVISOR_API_URL is set");
  const timeoutMs = e.ADVISOR_TIMEOUT_MS === undefined ? 4000 : Number(e.ADVISOR_TIMEOUT_MS);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 30_000)
    issues.push("ADVISOR_TIMEOUT_MS: must be 100 to 30000 milliseconds");
  if (issues.length) throw invalid(issues);
  return { apiUrl: e.ADVISOR_API_URL.replace(/\/+$/, ""), apiKey: e.ADVISOR_API_KEY, model: e.ADVISOR_MODEL!, timeoutMs };
}

const invalid = (issues: string[]) => new Error(`Invalid advisor configuration:\n${issues.map((i) => `  ${i}`).join("\n")}`);
