import { describe, expect, it } from "vitest";
import { kycConfigFromEnv } from "./config";

const sumsub = { SUMSUB_APP_TOKEN: "sbx:tok", SUMSUB_SECRET_KEY: "s3cr3t-value", SUMSUB_WEBHOOK_SECRET: "wh-secret-value" };
const veriff = { VERIFF_API_KEY: "0b2c5c2e-1f7e-4a53-9b44-3b2f0f3c1a11", VERIFF_SHARED_SECRET: "veriff-secret-value" };

function problems(source: Record<string, string>, environment: "sandbox" | "production" = "sandbox"): string {
  try {
    kycConfigFromEnv(source, environment);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected an invalid configuration");
}

describe("KYC configuration from the environment", () => {
  it("defaults to the sandbox provider in sandbox, with the default knobs", () => {
    expect(kycConfigFromEnv({}, "sandbox")).toEqual({
      environment: "sandbox",
      providers: ["sandbox"],
      timeoutMs: 10_000,
      retryAttempts: 2,
      retryBaseMs: 250,
    });
  });

  it("reads the failover order and each provider's credentials, with default API URLs", () => {
    const c = kycConfigFromEnv({ KYC_PROVIDERS: " Sumsub , veriff ", ...sumsub, ...veriff }, "production");
    expect(c.providers).toEqual(["sumsub", "veriff"]);
    expect(c.sumsub).toEqual({
      appToken: "sbx:tok",
      secretKey: "s3cr3t-value",
      webhookSecret: "wh-secret-value",
      apiUrl: "https://api.sumsub.com",
    });
    expect(c.veriff).toEqual({
      apiKey: veriff.VERIFF_API_KEY,
      sharedSecret: "veriff-secret-value",
      apiUrl: "https://stationapi.veriff.com",
    });
  });

  it("takes the knobs and API URLs (trailing slash dropped)", () => {
    const c = kycConfigFromEnv(
      {
        KYC_PROVIDERS: "veriff",
        ...veriff,
        VERIFF_API_URL: "http://127.0.0.1:4000/",
        KYC_HTTP_TIMEOUT_MS: "500",
        KYC_RETRY_ATTEMPTS: "0",
        KYC_RETRY_BASE_MS: "5",
      },
      "sandbox",
    );
    expect(c).toMatchObject({
      providers: ["veriff"],
      timeoutMs: 500,
      retryAttempts: 0,
      retryBaseMs: 5,
      veriff: { apiUrl: "http://127.0.0.1:4000" },
    });
  });

  it("names every missing credential in one error, and never a value", () => {
    const msg = problems({ KYC_PROVIDERS: "sumsub,veriff", SUMSUB_APP_TOKEN: "sbx:tok", VERIFF_SHARED_SECRET: "veriff-secret-value" });
    expect(msg).toContain("SUMSUB_SECRET_KEY: is required when KYC_PROVIDERS includes sumsub");
    expect(msg).toContain("SUMSUB_WEBHOOK_SECRET: is required");
    expect(msg).toContain("VERIFF_API_KEY: is required when KYC_PROVIDERS includes veriff");
    expect(msg).not.toContain("sbx:tok");
    expect(msg).not.toContain("veriff-secret-value");
  });

  it("refuses the sandbox in production, and production without providers", () => {
    expect(problems({ KYC_PROVIDERS: "sandbox" }, "production")).toContain("KYC_PROVIDERS: sandbox is refused when BI_ENV=production");
    expect(problems({}, "production")).toContain("KYC_PROVIDERS: is required when BI_ENV=production");
  });

  it("refuses unknown and repeated provider names", () => {
    expect(problems({ KYC_PROVIDERS: "sumsub,onfido", ...sumsub })).toContain("KYC_PROVIDERS: has 1 unknown provider name(s)");
    expect(problems({ KYC_PROVIDERS: "sandbox,sandbox" })).toContain("KYC_PROVIDERS: names a provider twice");
  });

  it("refuses bad URLs, plain http in production and bad knobs, all at once", () => {
    const msg = problems(
      { KYC_PROVIDERS: "sumsub,veriff", ...sumsub, ...veriff, SUMSUB_API_URL: "ftp://x", VERIFF_API_URL: "http://veriff.test" },
      "production",
    );
    expect(msg).toContain("SUMSUB_API_URL: must be an http(s) URL");
    expect(msg).toContain("VERIFF_API_URL: must be https when BI_ENV=production");
    const knobs = problems({ KYC_HTTP_TIMEOUT_MS: "fast", KYC_RETRY_ATTEMPTS: "99" });
    expect(knobs).toContain("KYC_HTTP_TIMEOUT_MS");
    expect(knobs).toContain("KYC_RETRY_ATTEMPTS");
  });
});
