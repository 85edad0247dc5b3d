import { setTimeout as sleep } from "node:timers/promises";
import { AppError } from "../../errors";
import { logger } from "../../log";
import { type KycProvider, ProviderError, type ProviderName } from "./types";

/** The providerCode of a provider that has no KYB; see veriff.ts. */
export const KYB_NOT_SUPPORTED = "kyb_not_supported";

export type RetryPolicy = { retryAttempts: number; retryBaseMs: number };
export type FailoverOptions = { kyb?: boolean };

const noKyb = (op: string) =>
  new AppError("PROVIDER_FAILURE", "No configured provider can verify companies.", { reason: KYB_NOT_SUPPORTED, op });

/** base · 2^n plus up to one base of jitter, so a crowd of retries spreads out. */
const backoff = (policy: RetryPolicy, n: number) => policy.retryBaseMs * 2 ** n + Math.floor(Math.random() * (policy.retryBaseMs + 1));

/**
 * Calls `fn` on each provider in order. A transient failure is retried with exponential backoff
 * up to the retry budget, then the next provider is tried; a provider that named a Retry-After
 * window is not called again inside this request (it told us when to come back), we fail over at
 * once, and so is a call that may already have taken effect there (not `repeatable`), since
 * repeating it could do it twice. A permanent failure is PROVIDER_FAILURE at once with no
 * failover, so the same request always gets the same answer. With `kyb`, providers without KYB
 * are skipped.
 */
export async function runWithFailover<T>(
  providers: readonly KycProvider[],
  policy: RetryPolicy,
  op: string,
  fn: (p: KycProvider) => Promise<T>,
  opts: FailoverOptions = {},
): Promise<{ value: T; provider: ProviderName }> {
  const eligible = opts.kyb ? providers.filter((p) => p.supportsKyb) : providers;
  if (!eligible.length) throw noKyb(op);
  let retryAfterSec: number | undefined;
  // Providers that failed as unavailable, for the 503's details.
  const tried: ProviderName[] = [];
  for (const provider of eligible) {
    for (let attempt = 0; ; attempt++) {
      try {
        return { value: await fn(provider), provider: provider.name };
      } catch (err) {
        if (!(err instanceof ProviderError)) throw err;
        logger().warn(
          {
            provider: provider.name,
            op,
            kind: err.kind,
            providerCode: err.providerCode ?? null,
            attempt,
            retryAfterSec: err.retryAfterSec ?? null,
            repeatable: err.repeatable,
          },
          "kyc provider call failed",
        );
        // "I do not do this" (Veriff asked for KYB) is no refusal of the request: try the next provider.
        if (err.kind === "permanent" && err.providerCode === KYB_NOT_SUPPORTED) break;
        if (err.kind === "permanent")
          throw new AppError(
            "PROVIDER_FAILURE",
            `The identity provider ${provider.name} refused the request (${err.providerCode ?? "refused"}).`,
            {
              provider: provider.name,
              ...(err.providerCode ? { providerCode: err.providerCode } : {}),
            },
          );
        if (!tried.includes(provider.name)) tried.push(provider.name);
        if (err.retryAfterSec !== undefined) retryAfterSec = Math.max(retryAfterSec ?? 0, err.retryAfterSec);
        if (err.retryAfterSec !== undefined || !err.repeatable || attempt >= policy.retryAttempts) break;
        await sleep(backoff(policy, attempt));
      }
    }
  }
  if (!tried.length) throw noKyb(op);
  throw new AppError(
    "PROVIDER_UNAVAILABLE",
    "No identity provider is available right now; retry later.",
    { providers: tried, ...(retryAfterSec !== undefined ? { retryAfterSec } : {}) },
    retryAfterSec !== undefined ? { "Retry-After": String(retryAfterSec) } : undefined,
  );
}
