import { type PaymentsConfig, paymentsConfig } from "./config";
import { createSandboxPayments } from "./sandbox";
import { createStripePayments } from "./stripe";
import type { PaymentProvider } from "./types";

export type { PaymentsConfig } from "./config";
export type { PaymentNotification, PaymentProvider } from "./types";

let cached: { config: PaymentsConfig; provider: PaymentProvider } | undefined;

function load() {
  if (!cached) {
    const config = paymentsConfig();
    cached = { config, provider: config.stripe ? createStripePayments(config.stripe) : createSandboxPayments() };
  }
  return cached;
}

/** The card payment provider of this process: Stripe when configured, else (sandbox only) the stand-in. */
export const payments = (): PaymentProvider => load().provider;
export const paymentSettings = (): PaymentsConfig => load().config;

/** For start-up: throws, naming the bad variables, when the payment settings are invalid or incomplete. */
export function assertPaymentsConfigured(): void {
  paymentsConfig();
}

/** Tests change STRIPE_* between cases; production code never calls this. */
export function resetPaymentsCache(): void {
  cached = undefined;
}
