import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { documentedKeys } from "../testing/keys";
import { authOptions } from "./options";

const PRODUCTION = {
  BI_ENV: "production",
  DATABASE_URL: "postgresql://x@db/y",
  ...documentedKeys(),
  NEXTAUTH_SECRET: "x".repeat(32),
};
const saved = Object.fromEntries(Object.keys(PRODUCTION).map((k) => [k, process.env[k]]));

afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
});

describe("the console's session cookie", () => {
  it("is Secure, with the __Secure- prefix, in production, and a plain local cookie elsewhere", () => {
    expect(authOptions().useSecureCookies).toBe(false);
    Object.assign(process.env, PRODUCTION);
    resetEnvCache();
    expect(authOptions().useSecureCookies).toBe(true);
    expect(authOptions().session).toMatchObject({ strategy: "jwt", maxAge: 8 * 60 * 60 });
  });
});
