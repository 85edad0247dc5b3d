import { afterAll, beforeAll } from "vitest";
import { resetKycConfigCache } from "../providers/kyc";
import { type FakeSumsub, startFakeSumsub } from "./fake-sumsub";

const SETTINGS = ["KYC_PROVIDERS", "SUMSUB_APP_TOKEN", "SUMSUB_SECRET_KEY", "SUMSUB_WEBHOOK_SECRET", "SUMSUB_API_URL"] as const;

/**
 * For the tests of the calling file or `describe` block: the service's KYC goes to a fresh fake
 * Sumsub (started before them, settings restored and the fake closed after). Returns the fake,
 * to be read once the hooks have run.
 */
export function fakeSumsubForKyc(): () => FakeSumsub {
  let fake: FakeSumsub | undefined;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    fake = await startFakeSumsub();
    for (const k of SETTINGS) saved[k] = process.env[k];
    Object.assign(process.env, {
      KYC_PROVIDERS: "sumsub",
      SUMSUB_APP_TOKEN: fake.appToken,
      SUMSUB_SECRET_KEY: fake.secretKey,
      SUMSUB_WEBHOOK_SECRET: fake.webhookSecret,
      SUMSUB_API_URL: fake.url,
    });
    resetKycConfigCache();
  });
  afterAll(async () => {
    for (const k of SETTINGS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    resetKycConfigCache();
    await fake?.close();
  });
  return () => {
    if (!fake) throw new Error("the fake Sumsub starts in beforeAll");
    return fake;
  };
}
