import { describe, expect, it } from "vitest";
import { paymentsConfig } from "./config";

const stripe = {
  STRIPE_SECRET_KEY: "sk_test_abcdefgh12345678",
  STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678",
  STRIPE_PRICE_GROWTH: "price_growth123",
};
const problems = (source: Record<string, string>, env: "sandbox" | "production" = "sandbox") => {
  try {
    paymentsConfig(source, env);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
};

describe("payments configuration", () => {
  it("runs the sandbox without Stripe, with the simulated chain's treasury and price", () => {
    expect(paymentsConfig({}, "sandbox")).toEqual({
      environment: "sandbox",
      stripe: null,
      chain: { treasury: "treasury.bi", priceGrowth: "499.0000 EOS" },
    });
  });

  it("reads STRIPE_API_URL into the SDK's host, port and protocol", () => {
    const c = paymentsConfig({ ...stripe, STRIPE_API_URL: "http://127.0.0.1:12111" }, "sandbox");
    expect(c.stripe).toMatchObject({ host: "127.0.0.1", port: 12111, protocol: "http", priceGrowth: "price_growth123", timeoutMs: 20000 });
    expect(paymentsConfig({ ...stripe, STRIPE_API_URL: "https://stripe-proxy.internal" }, "sandbox").stripe).toMatchObject({
      port: 443,
      protocol: "https",
    });
  });

  it("refuses half a Stripe configuration, naming the variables and never their values", () => {
    const message = problems({ STRIPE_SECRET_KEY: "sk_live_supersecretvalue1" });
    expect(message).toContain("STRIPE_WEBHOOK_SECRET: is required");
    expect(message).toContain("STRIPE_PRICE_GROWTH: is required");
    expect(message).not.toContain("supersecretvalue");
    expect(problems({ ...stripe, STRIPE_WEBHOOK_SECRET: "nope-secret-value" })).toContain("STRIPE_WEBHOOK_SECRET: must start with whsec_");
    expect(problems({ ...stripe, STRIPE_API_URL: "http://127.0.0.1:1/v1" })).toContain("origin only");
  });

  it("requires Stripe in production, over https, and no sandbox chain defaults", () => {
    expect(problems({}, "production")).toContain("are required in production");
    expect(problems({ ...stripe, STRIPE_API_URL: "http://127.0.0.1:9" }, "production")).toContain("must be https");
    expect(paymentsConfig(stripe, "production").chain).toBeNull();
    expect(
      paymentsConfig({ ...stripe, BILLING_TREASURY_ACCOUNT: "bi.treasury", BILLING_CHAIN_PRICE_GROWTH: "250.0000 EOS" }, "production")
        .chain,
    ).toEqual({
      treasury: "bi.treasury",
      priceGrowth: "250.0000 EOS",
    });
    expect(problems({ ...stripe, BILLING_CHAIN_PRICE_GROWTH: "0.0000 EOS" }, "production")).toContain(
      "BILLING_TREASURY_ACCOUNT: is required",
    );
  });
});
