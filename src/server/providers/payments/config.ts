import { Asset } from "@wharfkit/antelope";
import { z } from "zod";
import { env } from "@/env";
import { isValidAccountName } from "../chain/keys";

/**
 * Payment settings, read here (like the messaging adapters) so the folder stays self-contained.
 * Values are never echoed in errors: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are credentials.
 */
export type StripeConfig = {
  secretKey: string;
  webhookSecret: string;
  priceGrowth: string;
  host?: string;
  port?: number;
  protocol?: "http" | "https";
  timeoutMs: number;
};

export type ChainPaymentConfig = { treasury: string; priceGrowth: string };

export type PaymentsConfig = {
  environment: "sandbox" | "production";
  stripe: StripeConfig | null;
  /** Null when this deployment takes no on-chain payments. */
  chain: ChainPaymentConfig | null;
};

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const Schema = z.object({
  STRIPE_SECRET_KEY: optional,
  STRIPE_WEBHOOK_SECRET: optional,
  STRIPE_PRICE_GROWTH: optional,
  STRIPE_API_URL: optional,
  STRIPE_TIMEOUT_MS: optional,
  BILLING_TREASURY_ACCOUNT: optional,
  BILLING_CHAIN_PRICE_GROWTH: optional,
});

/** Sandbox defaults: the simulated chain's treasury and a price in its test token. */
export const SANDBOX_TREASURY = "treasury.bi";
export const SANDBOX_CHAIN_PRICE_GROWTH = "499.0000 EOS";

function stripeConfig(e: z.output<typeof Schema>, production: boolean, issues: string[]): StripeConfig | null {
  const set = [e.STRIPE_SECRET_KEY, e.STRIPE_WEBHOOK_SECRET, e.STRIPE_PRICE_GROWTH].filter(Boolean).length;
  if (set === 0) {
    if (production)
      issues.push("STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_GROWTH: are required in production (card payments)");
    if (e.STRIPE_API_URL) issues.push("STRIPE_API_URL: is set but STRIPE_SECRET_KEY is not");
    return null;
  }
  if (!e.STRIPE_SECRET_KEY) issues.push("STRIPE_SECRET_KEY: is required when any STRIPE_ setting is set");
  else if (!/^(sk|rk)_(test|live)_[A-Za-z0-9]{8,}$/.test(e.STRIPE_SECRET_KEY))
    issues.push("STRIPE_SECRET_KEY: must be a secret or restricted key (sk_… or rk_…)");
  if (!e.STRIPE_WEBHOOK_SECRET) issues.push("STRIPE_WEBHOOK_SECRET: is required when STRIPE_SECRET_KEY is set");
  else if (!/^whsec_[A-Za-z0-9+/=_-]{8,}$/.test(e.STRIPE_WEBHOOK_SECRET)) issues.push("STRIPE_WEBHOOK_SECRET: must start with whsec_");
  if (!e.STRIPE_PRICE_GROWTH) issues.push("STRIPE_PRICE_GROWTH: is required when STRIPE_SECRET_KEY is set");
  else if (!/^price_[A-Za-z0-9]+$/.test(e.STRIPE_PRICE_GROWTH)) issues.push("STRIPE_PRICE_GROWTH: must be a price id (price_…)");
  const timeout = e.STRIPE_TIMEOUT_MS === undefined ? 20_000 : Number(e.STRIPE_TIMEOUT_MS);
  if (!Number.isInteger(timeout) || timeout < 100 || timeout > 120_000)
    issues.push("STRIPE_TIMEOUT_MS: must be 100 to 120000 milliseconds");
  const out: StripeConfig = {
    secretKey: e.STRIPE_SECRET_KEY ?? "",
    webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? "",
    priceGrowth: e.STRIPE_PRICE_GROWTH ?? "",
    timeoutMs: timeout,
  };
  if (e.STRIPE_API_URL) {
    let url: URL | undefined;
    try {
      url = new URL(e.STRIPE_API_URL);
    } catch {
      issues.push("STRIPE_API_URL: is not a URL");
    }
    if (url) {
      if (url.protocol !== "http:" && url.protocol !== "https:") issues.push("STRIPE_API_URL: must be an http(s) URL");
      else if (production && url.protocol !== "https:") issues.push("STRIPE_API_URL: must be https when BI_ENV=production");
      else if (url.pathname !== "/" || url.search) issues.push("STRIPE_API_URL: must be an origin only (scheme, host, port)");
      out.host = url.hostname.replace(/^\[|\]$/g, "");
      out.protocol = url.protocol === "http:" ? "http" : "https";
      out.port = url.port ? Number(url.port) : out.protocol === "http" ? 80 : 443;
    }
  }
  return out;
}

function chainConfig(e: z.output<typeof Schema>, production: boolean, issues: string[]): ChainPaymentConfig | null {
  const treasury = e.BILLING_TREASURY_ACCOUNT ?? (production ? undefined : SANDBOX_TREASURY);
  const price = e.BILLING_CHAIN_PRICE_GROWTH ?? (production ? undefined : SANDBOX_CHAIN_PRICE_GROWTH);
  if (!treasury && !price) return null;
  if (!treasury) issues.push("BILLING_TREASURY_ACCOUNT: is required when BILLING_CHAIN_PRICE_GROWTH is set");
  else if (!isValidAccountName(treasury)) issues.push("BILLING_TREASURY_ACCOUNT: must be a chain account name");
  let asset: string | undefined;
  try {
    const a = price ? Asset.from(price) : undefined;
    if (a && a.value > 0) asset = a.toString();
  } catch {
    asset = undefined;
  }
  if (!asset) issues.push('BILLING_CHAIN_PRICE_GROWTH: must be a positive asset such as "499.0000 EOS"');
  return { treasury: treasury ?? "", priceGrowth: asset ?? "" };
}

/** Parses the payment settings; throws one error naming every bad variable (never its value). */
export function paymentsConfig(
  source: Record<string, string | undefined> = process.env,
  environment: "sandbox" | "production" = env().BI_ENV,
): PaymentsConfig {
  const parsed = Schema.parse(source);
  const production = environment === "production";
  const issues: string[] = [];
  const stripe = stripeConfig(parsed, production, issues);
  const chain = chainConfig(parsed, production, issues);
  if (issues.length) throw new Error(`Invalid payments configuration:\n${issues.map((i) => `  ${i}`).join("\n")}`);
  return { environment, stripe, chain };
}
