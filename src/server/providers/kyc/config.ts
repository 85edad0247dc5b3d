import { z } from "zod";
import { env } from "@/env";
import { PROVIDER_NAMES, type ProviderName } from "./types";

/**
 * KYC provider settings, read from the environment here (like messaging/config.ts) so the
 * adapters stay one folder. Errors name every bad variable and never echo a value: most of these
 * are credentials.
 */
export type SumsubConfig = { appToken: string; secretKey: string; webhookSecret: string; apiUrl: string };
export type VeriffConfig = { apiKey: string; sharedSecret: string; apiUrl: string };

export type KycConfig = {
  environment: "sandbox" | "production";
  /** Configured providers in failover order. */
  providers: ProviderName[];
  timeoutMs: number;
  /** Retries of a transient failure per provider, after the first call. */
  retryAttempts: number;
  retryBaseMs: number;
  sumsub?: SumsubConfig;
  veriff?: VeriffConfig;
};

const NAMES: readonly ProviderName[] = PROVIDER_NAMES;

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const wholeNumber = (min: number, max: number, what: string) =>
  optional.pipe(
    z.string().regex(/^\d+$/, `must be a whole number of ${what}`).transform(Number).pipe(z.int().min(min).max(max)).optional(),
  );

const Schema = z.object({
  KYC_PROVIDERS: optional,
  SUMSUB_APP_TOKEN: optional,
  SUMSUB_SECRET_KEY: optional,
  SUMSUB_WEBHOOK_SECRET: optional,
  SUMSUB_API_URL: optional,
  VERIFF_API_KEY: optional,
  VERIFF_SHARED_SECRET: optional,
  VERIFF_API_URL: optional,
  KYC_HTTP_TIMEOUT_MS: wholeNumber(50, 120_000, "milliseconds"),
  KYC_RETRY_ATTEMPTS: wholeNumber(0, 10, "retries"),
  KYC_RETRY_BASE_MS: wholeNumber(0, 60_000, "milliseconds"),
});
type Parsed = z.output<typeof Schema>;

function providerList(raw: string | undefined, production: boolean, issues: string[]): ProviderName[] {
  if (!raw) {
    if (production) issues.push("KYC_PROVIDERS: is required when BI_ENV=production (e.g. sumsub,veriff)");
    return production ? [] : ["sandbox"];
  }
  const names = raw
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !NAMES.includes(n as ProviderName));
  if (unknown.length) issues.push(`KYC_PROVIDERS: has ${unknown.length} unknown provider name(s); known: ${NAMES.join(", ")}`);
  if (new Set(names).size !== names.length) issues.push("KYC_PROVIDERS: names a provider twice");
  if (!names.length) issues.push("KYC_PROVIDERS: names no provider");
  if (production && names.includes("sandbox")) issues.push("KYC_PROVIDERS: sandbox is refused when BI_ENV=production");
  return names.filter((n): n is ProviderName => NAMES.includes(n as ProviderName));
}

function apiUrl(name: string, value: string | undefined, fallback: string, production: boolean, issues: string[]): string {
  const url = value ?? fallback;
  if (!z.url({ protocol: /^https?$/ }).safeParse(url).success) issues.push(`${name}: must be an http(s) URL`);
  else if (production && !url.startsWith("https:")) issues.push(`${name}: must be https when BI_ENV=production`);
  return url.replace(/\/+$/, "");
}

function required(e: Parsed, names: (keyof Parsed)[], provider: string, issues: string[]) {
  for (const n of names) if (!e[n]) issues.push(`${n}: is required when KYC_PROVIDERS includes ${provider}`);
}

/** Parses the KYC settings; throws one error naming every bad variable (never its value). */
export function kycConfigFromEnv(
  source: Record<string, string | undefined> = process.env,
  environment: "sandbox" | "production" = env().BI_ENV,
): KycConfig {
  const parsed = Schema.safeParse(source);
  if (!parsed.success) throw invalid(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  const e = parsed.data;
  const production = environment === "production";
  const issues: string[] = [];
  const providers = providerList(e.KYC_PROVIDERS, production, issues);
  const config: KycConfig = {
    environment,
    providers,
    timeoutMs: e.KYC_HTTP_TIMEOUT_MS ?? 10_000,
    retryAttempts: e.KYC_RETRY_ATTEMPTS ?? 2,
    retryBaseMs: e.KYC_RETRY_BASE_MS ?? 250,
  };
  if (providers.includes("sumsub")) {
    required(e, ["SUMSUB_APP_TOKEN", "SUMSUB_SECRET_KEY", "SUMSUB_WEBHOOK_SECRET"], "sumsub", issues);
    config.sumsub = {
      appToken: e.SUMSUB_APP_TOKEN ?? "",
      secretKey: e.SUMSUB_SECRET_KEY ?? "",
      webhookSecret: e.SUMSUB_WEBHOOK_SECRET ?? "",
      apiUrl: apiUrl("SUMSUB_API_URL", e.SUMSUB_API_URL, "https://api.sumsub.com", production, issues),
    };
  }
  if (providers.includes("veriff")) {
    required(e, ["VERIFF_API_KEY", "VERIFF_SHARED_SECRET"], "veriff", issues);
    config.veriff = {
      apiKey: e.VERIFF_API_KEY ?? "",
      sharedSecret: e.VERIFF_SHARED_SECRET ?? "",
      apiUrl: apiUrl("VERIFF_API_URL", e.VERIFF_API_URL, "https://stationapi.veriff.com", production, issues),
    };
  }
  if (issues.length) throw invalid(issues);
  return config;
}

const invalid = (issues: string[]) => new Error(`Invalid KYC configuration:\n${issues.map((i) => `  ${i}`).join("\n")}`);
