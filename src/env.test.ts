import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";
import { documentedKeys } from "./server/testing/keys";

/** The message parseEnv throws for `source` ("" when it accepts it). */
function problemsOf(source: Record<string, string>): string {
  try {
    parseEnv(source);
    return "";
  } catch (err) {
    return (err as Error).message;
  }
}

const prod = {
  BI_ENV: "production",
  BI_PUBLIC_URL: "https://id.example.com",
  DATABASE_URL: "postgresql://x@db/y",
  ...documentedKeys(),
  NEXTAUTH_SECRET: "x".repeat(32),
};

describe("the environment", () => {
  it("defaults to a sandbox with dev codes on and the embedded database", () => {
    const e = parseEnv({});
    expect(e).toMatchObject({ BI_ENV: "sandbox", BI_DEV_CODES: true, PORT: 3000, WEBHOOK_MAX_ATTEMPTS: 8 });
    expect(e.DATABASE_URL).toBeUndefined();
  });

  it("takes the public address from PORT when BI_PUBLIC_URL is unset (or empty), and requires it in production", () => {
    expect(parseEnv({ PORT: "4123" }).BI_PUBLIC_URL).toBe("http://localhost:4123");
    expect(parseEnv({ PORT: "4123", BI_PUBLIC_URL: "" }).BI_PUBLIC_URL).toBe("http://localhost:4123");
    expect(parseEnv({}).BI_PUBLIC_URL).toBe("http://localhost:3000");
    expect(parseEnv({ PORT: "4123", BI_PUBLIC_URL: "https://id.example.com" }).BI_PUBLIC_URL).toBe("https://id.example.com");
    const { BI_PUBLIC_URL: _set, ...withoutUrl } = prod;
    expect(problemsOf(withoutUrl)).toMatch(/BI_PUBLIC_URL: is required in production/);
    expect(problemsOf(prod)).toBe("");
  });

  it("refuses dev codes and private webhook URLs in production, naming the variables but never their values", () => {
    expect(() => parseEnv({ ...prod, BI_DEV_CODES: "true", WEBHOOK_ALLOW_PRIVATE_URLS: "true" })).toThrow(
      /BI_DEV_CODES[\s\S]*WEBHOOK_ALLOW_PRIVATE_URLS|WEBHOOK_ALLOW_PRIVATE_URLS[\s\S]*BI_DEV_CODES/,
    );
    expect(parseEnv(prod).BI_DEV_CODES).toBe(false);
  });

  it("refuses the operator socket on PostgreSQL in production (it provisions and erases organizations)", () => {
    expect(problemsOf({ ...prod, BI_OPERATOR_SOCKET: "true" })).toContain("BI_OPERATOR_SOCKET");
    expect(parseEnv({ BI_OPERATOR_SOCKET: "true" }).BI_OPERATOR_SOCKET).toBe(true);
  });

  it("turns dev codes on by default only for local development: a sandbox on a public host sends codes only by email", () => {
    expect(parseEnv({ BI_PUBLIC_URL: "http://127.0.0.1:3107" }).BI_DEV_CODES).toBe(true);
    expect(parseEnv({ BI_PUBLIC_URL: "http://[::1]:3000" }).BI_DEV_CODES).toBe(true);
    expect(parseEnv({ BI_PUBLIC_URL: "https://sandbox.example.com" }).BI_DEV_CODES).toBe(false);
    expect(parseEnv({ BI_PUBLIC_URL: "https://sandbox.example.com", BI_DEV_CODES: "true" }).BI_DEV_CODES).toBe(true);
  });

  it("requires the database, encryption key and issuer key in production", () => {
    const message = problemsOf({ BI_ENV: "production" });
    for (const v of ["DATABASE_URL", "BI_ENCRYPTION_KEY", "BI_HASH_KEY", "BI_ISSUER_SIGNING_KEY", "NEXTAUTH_SECRET"])
      expect(message).toContain(v);
  });

  it("reads the migration settings: their own address, on at start by default, a bounded wait for the lock", () => {
    expect(parseEnv({})).toMatchObject({ BI_MIGRATE_ON_START: true, BI_MIGRATION_LOCK_WAIT_MS: 300_000 });
    expect(parseEnv({ BI_MIGRATE_ON_START: "false" }).BI_MIGRATE_ON_START).toBe(false);
    expect(problemsOf({ DATABASE_MIGRATION_URL: "postgresql://x@db/y" })).toContain("DATABASE_MIGRATION_URL: needs DATABASE_URL");
    expect(
      parseEnv({ DATABASE_URL: "postgresql://x@pooler/y", DATABASE_MIGRATION_URL: "postgresql://x@db/y" }).DATABASE_MIGRATION_URL,
    ).toBe("postgresql://x@db/y");
  });

  it("hashes audit entries with the native digest module unless told not to", () => {
    expect(parseEnv({}).BI_NATIVE_DIGESTS).toBe(true);
    expect(parseEnv({ BI_NATIVE_DIGESTS: "false" }).BI_NATIVE_DIGESTS).toBe(false);
    expect(problemsOf({ BI_NATIVE_DIGESTS: "off" })).toContain("BI_NATIVE_DIGESTS");
  });

  it("reads the re-screen's scoring threads: unset by default, 0 to 8, anything else refused", () => {
    expect(parseEnv({}).BI_RESCREEN_THREADS).toBeUndefined();
    expect(parseEnv({ BI_RESCREEN_THREADS: "0" }).BI_RESCREEN_THREADS).toBe(0);
    expect(parseEnv({ BI_RESCREEN_THREADS: "3" }).BI_RESCREEN_THREADS).toBe(3);
    for (const bad of ["9", "-1", "1.5", "two"])
      expect(problemsOf({ BI_RESCREEN_THREADS: bad })).toContain("BI_RESCREEN_THREADS: must be an integer from 0 to 8");
  });

  it("refuses the API-key cache behind a transaction pooler without a direct address for its LISTEN", () => {
    const pooled = { DATABASE_URL: "postgresql://x@pgbouncer:6432/y", BI_DATABASE_POOLED: "true" };
    const message = problemsOf(pooled);
    expect(message).toContain("BI_AUTH_CACHE: is on while DATABASE_URL goes through a transaction pooler");
    expect(message).toContain("DATABASE_DIRECT_URL");
    expect(message).not.toContain("pgbouncer:6432");
    expect(problemsOf({ ...pooled, DATABASE_DIRECT_URL: "postgresql://x@db:5432/y" })).toBe("");
    expect(parseEnv({ ...pooled, BI_AUTH_CACHE: "OFF" }).BI_AUTH_CACHE).toBe(false);
    expect(parseEnv({}).BI_AUTH_CACHE).toBe(true);
    expect(problemsOf({ BI_AUTH_CACHE: "maybe" })).toContain("BI_AUTH_CACHE: must be on or off");
    expect(problemsOf({ DATABASE_DIRECT_URL: "postgresql://x@db:5432/y" })).toContain("DATABASE_DIRECT_URL: needs DATABASE_URL");
  });

  it("refuses TRUSTED_PROXIES entries that are not CIDRs, without echoing them", () => {
    const message = problemsOf({ TRUSTED_PROXIES: "10.0.0.0/8, 10/8, secret-host" });
    expect(message).toContain("TRUSTED_PROXIES");
    expect(message).not.toContain("secret-host");
    expect(parseEnv({ TRUSTED_PROXIES: "10.0.0.0/8,::1" }).TRUSTED_PROXIES).toBe("10.0.0.0/8,::1");
  });
});
