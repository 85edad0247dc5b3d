import { AppError } from "../../errors";
import { type KycConfig, kycConfigFromEnv } from "./config";
import { eudiWalletProvider, type PidTrustedIssuer, pidTrustListFromEnv } from "./eudi-wallet";
import { type FailoverOptions, runWithFailover } from "./failover";
import { sandboxProvider } from "./sandbox";
import { sumsubProvider } from "./sumsub";
import type { KycProvider, ProviderName } from "./types";
import { veriffProvider } from "./veriff";

export { EUDI_PID_VCT, type PidTrustedIssuer, SANDBOX_PID_ISSUER, sandboxPidIssuer } from "./eudi-wallet";
export type { FailoverOptions } from "./failover";
export * from "./types";

let cached: { config: KycConfig; providers: KycProvider[]; pidTrust: PidTrustedIssuer[] } | undefined;

/** Builds the configured providers, in failover order. */
export function buildKycProviders(config: KycConfig): KycProvider[] {
  const http = { timeoutMs: config.timeoutMs };
  return config.providers.map((name) => {
    switch (name) {
      case "sandbox":
        return sandboxProvider();
      case "sumsub":
        return sumsubProvider({ ...config.sumsub!, ...http });
      case "veriff":
        return veriffProvider({ ...config.veriff!, ...http });
      case "eudi_wallet":
        return eudiWalletProvider();
      default:
        throw new Error(`unknown KYC provider ${name satisfies never}`);
    }
  });
}

function state() {
  if (!cached) {
    const config = kycConfigFromEnv();
    // The PID trust list is read with the providers, so a bad EUDI_PID_TRUST_LIST fails start-up too.
    const pidTrust = config.providers.includes("eudi_wallet") ? pidTrustListFromEnv(process.env, config.providers, config.environment) : [];
    cached = { config, providers: buildKycProviders(config), pidTrust };
  }
  return cached;
}

/** For start-up: throws naming every bad KYC variable (never values), so a bad deployment fails before serving. */
export function assertKycConfigured(): void {
  state();
}

/** The configured providers, in failover order (KYC_PROVIDERS). */
export const kycProviders = (): KycProvider[] => [...state().providers];

/**
 * The provider a session was started with, for its callbacks and refreshes. Throws when that
 * provider is no longer configured: its callbacks cannot be verified without its secrets.
 */
export function kycProvider(name: ProviderName): KycProvider {
  const p = state().providers.find((x) => x.name === name);
  if (!p)
    throw new AppError("PROVIDER_FAILURE", `The identity provider ${name} is not configured on this deployment.`, {
      provider: name,
      reason: "not_configured",
    });
  return p;
}

/** Whether KYC_PROVIDERS names this provider (a callback route for another one can answer 404). */
export const isKycProviderConfigured = (name: ProviderName): boolean => state().providers.some((x) => x.name === name);

/** The issuers trusted to sign an EU wallet PID; none when KYC_PROVIDERS does not name eudi_wallet. */
export const pidTrustList = (): PidTrustedIssuer[] => state().pidTrust;

/** Tests change the environment between cases; production code never calls this. */
export function resetKycConfigCache(): void {
  cached = undefined;
}

/**
 * Runs `fn` against the configured providers with retry and failover (see runWithFailover):
 * PROVIDER_FAILURE for a permanent refusal, PROVIDER_UNAVAILABLE (with retryAfterSec and a
 * Retry-After header when a provider named a window) when every provider failed. Pass
 * `{ kyb: true }` for KYB so providers without it (Veriff) are skipped.
 */
export function withFailover<T>(op: string, fn: (p: KycProvider) => Promise<T>, opts: FailoverOptions = {}) {
  const { config, providers } = state();
  return runWithFailover(providers, config, op, fn, opts);
}

/**
 * The same retry and error mapping for a call that must go to one provider: the refresh of a
 * session started there (GET /v1/kyc/status?refresh=1). No failover: another provider does not
 * know the applicant.
 */
export function withProvider<T>(name: ProviderName, op: string, fn: (p: KycProvider) => Promise<T>) {
  return runWithFailover([kycProvider(name)], state().config, op, fn);
}
