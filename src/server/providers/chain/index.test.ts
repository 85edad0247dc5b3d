import { PrivateKey } from "@wharfkit/antelope";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { getDb } from "../../db/client";
import { documentedKeys } from "../../testing/keys";
import { chainAdapter, resetChainConfigCache } from "./index";

const CHAIN_VARS = {
  CHAIN_API_URL: "http://127.0.0.1:9",
  CHAIN_NAME: "wax",
  CHAIN_SPONSOR_ACCOUNT: "sponsor.bi",
  CHAIN_SPONSOR_PRIVATE_KEY: PrivateKey.generate("K1").toString(),
  CHAIN_NET_STAKE: "0.10000000 WAX",
  CHAIN_CPU_STAKE: "0.10000000 WAX",
};

const touched = [...Object.keys(CHAIN_VARS), "BI_ENV", "BI_ENCRYPTION_KEY", "BI_HASH_KEY", "BI_ISSUER_SIGNING_KEY", "NEXTAUTH_SECRET"];
const saved = Object.fromEntries(touched.map((k) => [k, process.env[k]]));

afterEach(() => {
  for (const k of touched) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetEnvCache();
  resetChainConfigCache();
});

describe("chainAdapter", () => {
  it("uses the simulated chain in sandbox without CHAIN_API_URL", async () => {
    expect(chainAdapter(await getDb()).chain).toBe("sandbox");
  });

  it("uses the real chain when CHAIN_API_URL is set, even in sandbox", async () => {
    Object.assign(process.env, CHAIN_VARS);
    expect(chainAdapter(await getDb()).chain).toBe("wax");
  });

  it("never simulates in production: a missing chain configuration is an error", async () => {
    Object.assign(process.env, {
      BI_ENV: "production",
      ...documentedKeys(),
      NEXTAUTH_SECRET: "x".repeat(32),
    });
    resetEnvCache();
    expect(() => chainAdapter({} as never)).toThrow(/CHAIN_API_URL/);
  });
});
