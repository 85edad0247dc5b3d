import { z } from "zod";
import { badPreviousKeys, decodeHashKey, decodeIssuerSeed, ISSUER_SEED_FORM, parseEncryptionKeys } from "./server/crypto/key-encoding";
import { DEFAULT_MIGRATION_LOCK_WAIT_MS } from "./server/db/migrate";
import { isValidCidr } from "./server/net/cidr";
import { isLoopbackHost } from "./server/net/loopback";

const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : v === "true" || v === "1"));

/** A non-negative integer setting (at most `max` when given); `fallback` when unset or empty. */
const int = <F extends number | undefined>(fallback: F, max?: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx): number | F => {
      if (v === undefined || v === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || (max !== undefined && n > max)) {
        ctx.addIssue({
          code: "custom",
          message: max === undefined ? "must be a non-negative integer" : `must be an integer from 0 to ${max}`,
        });
        return z.NEVER;
      }
      return n;
    });

/** A key setting; empty means unset. Its form is checked below (keyProblems), with the other settings. */
const optionalKey = () =>
  z
    .string()
    .optional()
    .transform((v) => v || undefined);

/**
 * Key settings checked at start-up by the rules of the code that reads them later, so a bad key
 * stops the service with a message naming the variable (never its value) instead of failing on
 * first use while health stays green.
 */
function keyProblems(e: {
  BI_ENCRYPTION_KEY?: string;
  BI_HASH_KEY?: string;
  BI_ISSUER_SIGNING_KEY?: string;
  BI_ISSUER_PREVIOUS_KEYS: string;
  BI_IDENTITY_HASH_KEYS?: string;
}): [string, string][] {
  const problems: [string, string][] = [];
  if (e.BI_ENCRYPTION_KEY) {
    try {
      parseEncryptionKeys(e.BI_ENCRYPTION_KEY);
    } catch (err) {
      problems.push(["BI_ENCRYPTION_KEY", (err as Error).message]);
    }
  }
  if (e.BI_HASH_KEY && !decodeHashKey(e.BI_HASH_KEY)) problems.push(["BI_HASH_KEY", "must be 32 bytes of base64"]);
  if (e.BI_ISSUER_SIGNING_KEY && !decodeIssuerSeed(e.BI_ISSUER_SIGNING_KEY)) problems.push(["BI_ISSUER_SIGNING_KEY", ISSUER_SEED_FORM]);
  const identityKeys = (e.BI_IDENTITY_HASH_KEYS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (identityKeys.some((k) => k !== "h0" && !(k.indexOf(":") > 0 && decodeHashKey(k.slice(k.indexOf(":") + 1)))))
    problems.push(["BI_IDENTITY_HASH_KEYS", "each entry is id:base64 (32 bytes), or h0 for the key derived from BI_HASH_KEY"]);
  const badPrevious = badPreviousKeys(e.BI_ISSUER_PREVIOUS_KEYS);
  if (badPrevious)
    problems.push(["BI_ISSUER_PREVIOUS_KEYS", `has ${badPrevious} entries that are not Ed25519 publicKeyMultibase values (z…)`]);
  return problems;
}

const EnvSchema = z
  .object({
    BI_ENV: z.enum(["sandbox", "production"]).default("sandbox"),
    NODE_ENV: z.string().optional(),
    DATABASE_URL: z.string().optional(),
    /** Migrations go here when set (PostgreSQL itself, past a pooler), else to DATABASE_URL. */
    DATABASE_MIGRATION_URL: z
      .string()
      .optional()
      .transform((v) => v || undefined),
    /**
     * A session straight to PostgreSQL (never through a pooler) for what needs one session of its
     * own: the API-key cache's LISTEN. Set it when DATABASE_URL goes through PgBouncer.
     */
    DATABASE_DIRECT_URL: z
      .string()
      .optional()
      .transform((v) => v || undefined),
    /** DATABASE_URL goes through a transaction pooler (PgBouncer in transaction mode): its sessions never LISTEN. */
    BI_DATABASE_POOLED: bool(false),
    /** The in-process API-key cache (docs/performance.md); off reads every key from the database. */
    BI_AUTH_CACHE: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const s = (v ?? "").toLowerCase();
        if (s === "" || s === "on") return true;
        if (s === "off") return false;
        ctx.addIssue({ code: "custom", message: "must be on or off" });
        return z.NEVER;
      }),
    /** Apply pending migrations when an instance, a worker or an operator script starts; off when a migration job does. */
    BI_MIGRATE_ON_START: bool(true),
    /** How long a migrator waits for another migrator's lock before it fails naming the holder. */
    BI_MIGRATION_LOCK_WAIT_MS: int(DEFAULT_MIGRATION_LOCK_WAIT_MS),
    BI_DATA_DIR: z.string().default(".data"),
    PORT: int(3000),
    HOST: z.string().default("0.0.0.0"),
    /** The operator's scrape endpoint (GET /metrics, platform-wide); off unless set. */
    BI_METRICS_PORT: z
      .string()
      .regex(/^\d{1,5}$/)
      .transform(Number)
      .optional(),
    BI_METRICS_HOST: z.string().default("127.0.0.1"),
    /**
     * Public origin of this deployment; its host names the issuer (did:web:<host>). Unset outside
     * production, it is http://localhost:<PORT>, the address this process listens on; production
     * refuses to start without it.
     */
    BI_PUBLIC_URL: z.union([z.literal(""), z.url()]).optional(),
    BI_DEV_CODES: z.enum(["true", "false", "1", "0", ""]).optional(),
    TRUSTED_PROXIES: z.string().default(""),
    /** base64 of 32 bytes; may list several "id:key" pairs, the first encrypts. Empty is unset. */
    BI_ENCRYPTION_KEY: optionalKey(),
    /** base64 of 32 bytes: the root of keyed hashes (identifiers), kept when the encryption key rotates. */
    BI_HASH_KEY: optionalKey(),
    /** base64url Ed25519 seed of the issuer, padded or not; previous public keys stay resolvable. */
    BI_ISSUER_SIGNING_KEY: optionalKey(),
    BI_ISSUER_PREVIOUS_KEYS: z.string().default(""),
    /** Keys of the identity hashes (one person, one account), newest first: "id:base64" entries, h0 = derived from BI_HASH_KEY (the default). */
    BI_IDENTITY_HASH_KEYS: optionalKey(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    WEBHOOK_BACKOFF_BASE_MS: int(2000),
    WEBHOOK_TIMEOUT_MS: int(10_000),
    WEBHOOK_MAX_ATTEMPTS: int(8),
    /** An endpoint whose attempts have all failed this long is disabled; its owners are warned at half. */
    WEBHOOK_DISABLE_AFTER_HOURS: int(120),
    WEBHOOK_ALLOW_PRIVATE_URLS: bool(false),
    SANDBOX_CHAIN_FINALITY_SEC: int(3),
    /** How often the owner and active keys of bound accounts are read from the chain. */
    CHAIN_WATCH_INTERVAL_MS: int(60_000),
    /** How often accounts marked by a binding change are published to the attestation contract (docs/api/guides/onchain.md). */
    ATTESTATION_PUBLISH_INTERVAL_MS: int(3_000),
    /** How long a worker holds an account it is publishing before another worker may take it over (a crashed one's). */
    ATTESTATION_LEASE_MS: int(60_000),
    /** Keys the console session cookie; required in production, derived from the local key material otherwise. */
    NEXTAUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    /** Run background jobs (exports, webhook delivery) inside the app process. */
    BI_RUN_JOBS: bool(true),
    /**
     * Threads a re-screen scores pages on beside its own (docs/screening.md, "Ongoing screening");
     * unset: one when the machine has a second core. Each holds its own copy of the change's index.
     */
    BI_RESCREEN_THREADS: int(undefined, 8),
    /**
     * Audit verification hashes with the native digest module where `npm install` built it
     * (docs/performance.md, "Digests taken without OpenSSL's per-call dispatch"); false: node:crypto only.
     */
    BI_NATIVE_DIGESTS: bool(true),
    /** Also open the operator socket (org:create, outbox) on PostgreSQL, for a local service driven by scripts. */
    BI_OPERATOR_SOCKET: bool(false),
    /** On SIGTERM: how long /v1/ready answers 503 while requests are still served, before the listener closes. */
    BI_SHUTDOWN_DELAY_MS: int(0),
    /** On SIGTERM: how long requests in flight (and running jobs) may take to finish before they are cut. */
    BI_SHUTDOWN_GRACE_MS: int(20_000),
    /** Tests only: a named point where the process kills itself (crash tests); refused in production. */
    BI_FAULT_POINT: z.string().optional(),
  })
  .transform((e) => ({
    ...e,
    // Without its trailing slash, so `${BI_PUBLIC_URL}/path` is always one slash (publicUrl below).
    BI_PUBLIC_URL: (e.BI_PUBLIC_URL || `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    /** True when BI_PUBLIC_URL was not set and is this process's own port on localhost. */
    publicUrlFromPort: !e.BI_PUBLIC_URL,
    // On by default only in non-hosted local development (a sandbox on a loopback origin): the
    // contract allows dev codes nowhere else, and a hosted sandbox's codes go by email only.
    BI_DEV_CODES:
      e.BI_DEV_CODES === undefined || e.BI_DEV_CODES === ""
        ? e.BI_ENV === "sandbox" && isLoopbackHost(new URL(e.BI_PUBLIC_URL || "http://localhost").host)
        : e.BI_DEV_CODES === "true" || e.BI_DEV_CODES === "1",
  }))
  .superRefine((e, ctx) => {
    const badProxies = e.TRUSTED_PROXIES.split(",")
      .map((s) => s.trim())
      .filter((s) => s && !isValidCidr(s));
    if (badProxies.length)
      ctx.addIssue({ code: "custom", path: ["TRUSTED_PROXIES"], message: `has ${badProxies.length} entries that are not CIDRs` });
    for (const [name, message] of keyProblems(e)) ctx.addIssue({ code: "custom", path: [name], message });
    if (e.DATABASE_MIGRATION_URL && !e.DATABASE_URL)
      ctx.addIssue({
        code: "custom",
        path: ["DATABASE_MIGRATION_URL"],
        message: "needs DATABASE_URL (the embedded database is migrated in place)",
      });
    for (const name of ["DATABASE_DIRECT_URL", "BI_DATABASE_POOLED"] as const)
      if (e[name] && !e.DATABASE_URL)
        ctx.addIssue({ code: "custom", path: [name], message: "needs DATABASE_URL (the embedded database has no pooler)" });
    // LISTEN through a transaction pooler lands on whichever server connection is free and never
    // hears a revocation: the cache would serve a revoked key until its entry expires.
    if (e.DATABASE_URL && e.BI_DATABASE_POOLED && e.BI_AUTH_CACHE && !e.DATABASE_DIRECT_URL)
      ctx.addIssue({
        code: "custom",
        path: ["BI_AUTH_CACHE"],
        message:
          "is on while DATABASE_URL goes through a transaction pooler (BI_DATABASE_POOLED=true), where its LISTEN cannot hear revocations: set DATABASE_DIRECT_URL to PostgreSQL itself, or BI_AUTH_CACHE=off",
      });
    if (e.BI_ENV !== "production") return;
    if (e.publicUrlFromPort)
      ctx.addIssue({
        code: "custom",
        path: ["BI_PUBLIC_URL"],
        message: "is required in production (the issuer DID and every link are made from it)",
      });
    if (e.BI_DEV_CODES) ctx.addIssue({ code: "custom", path: ["BI_DEV_CODES"], message: "is refused when BI_ENV=production" });
    if (e.BI_FAULT_POINT) ctx.addIssue({ code: "custom", path: ["BI_FAULT_POINT"], message: "is refused when BI_ENV=production" });
    // The socket provisions and erases organizations for whoever shares the OS user: local use only.
    if (e.BI_OPERATOR_SOCKET) ctx.addIssue({ code: "custom", path: ["BI_OPERATOR_SOCKET"], message: "is refused when BI_ENV=production" });
    if (e.WEBHOOK_ALLOW_PRIVATE_URLS)
      ctx.addIssue({ code: "custom", path: ["WEBHOOK_ALLOW_PRIVATE_URLS"], message: "is refused when BI_ENV=production" });
    if (!e.BI_ENCRYPTION_KEY) ctx.addIssue({ code: "custom", path: ["BI_ENCRYPTION_KEY"], message: "is required in production" });
    if (!e.BI_HASH_KEY) ctx.addIssue({ code: "custom", path: ["BI_HASH_KEY"], message: "is required in production" });
    if (!e.BI_ISSUER_SIGNING_KEY) ctx.addIssue({ code: "custom", path: ["BI_ISSUER_SIGNING_KEY"], message: "is required in production" });
    if (!e.DATABASE_URL) ctx.addIssue({ code: "custom", path: ["DATABASE_URL"], message: "is required in production" });
    if (!e.NEXTAUTH_SECRET) ctx.addIssue({ code: "custom", path: ["NEXTAUTH_SECRET"], message: "is required in production" });
  });

export type Env = z.output<typeof EnvSchema>;

/** Parses an environment; throws one readable error naming every bad variable (never values). */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;

/** The validated environment of this process, read once. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** An address on this deployment's public origin: `publicUrl("/console")`. */
export const publicUrl = (path: string): string => `${env().BI_PUBLIC_URL}${path}`;

/** Tests change the environment between cases; production code never calls this. */
export function resetEnvCache(): void {
  cached = undefined;
}
