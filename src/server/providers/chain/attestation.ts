import { Action, Name, PrivateKey, Transaction, UInt64 } from "@wharfkit/antelope";
import { z } from "zod";
import { AppError } from "../../errors";
import { ATTESTATION_ABI } from "./attestation-abi";
import { name, privateKey } from "./config";
import { type ChainRejection, chainPost, type FetchFn, orFail, rejected } from "./http";
import { isValidAccountName } from "./keys";
import { buildTransaction, ChainInfo, chainTimeMs, signAndPack } from "./transaction";

/**
 * The service's writer of the attestation contract (contracts/attestation, guide
 * docs/api/guides/onchain.md): each write is one action signed by the issuer's permission and sent
 * through a node's chain API, as antelope.ts sends the faucet's; reads go through get_table_rows.
 */
export type AttestationConfig = {
  apiUrl: string;
  /** The account the attestation contract is deployed on. */
  contract: string;
  /** The account and permission the contract's config names (setissuer); the contract refuses any other. */
  issuer: string;
  permission: string;
  privateKey: PrivateKey;
  timeoutMs: number;
};

/** The fields `issue` publishes (docs/api/guides/onchain.md, "What the table holds"). */
export type AttestationIssue = {
  account: string;
  /** The organization's number on the chain, never 0 (the contract refuses 0). */
  org: number;
  /** 1: KYC passed; 2: also bound by the account's own wallet. */
  level: number;
  countryTier: number;
  /** ISO 3166-1 alpha-2, or "" unless the organization opted in. */
  country: string;
  /** The first second at which the attestation no longer holds (milliseconds are dropped). */
  expires: Date;
  /** The pairwise person id, or "". */
  person: string;
  statusIndex: number;
};

export type AttestationRow = AttestationIssue & {
  issued: Date;
  updated: Date;
  status: "active" | "suspended" | "revoked";
};

/** Public in the chain's history with the action: 0 not given, 1 the person asked, 2 the organization's decision (also every AML reason), 3 the account's keys changed. */
export type AttestationReason = 0 | 1 | 2 | 3;

export type AttestationPublisher = {
  issue(row: AttestationIssue): Promise<{ transactionId: string }>;
  suspend(account: string, reasonCode: AttestationReason): Promise<{ transactionId: string }>;
  reinstate(account: string): Promise<{ transactionId: string }>;
  revoke(account: string, reasonCode: AttestationReason): Promise<{ transactionId: string }>;
  /** Deletes the row (erasure of the person). */
  remove(account: string): Promise<{ transactionId: string }>;
  /** The contract's bounded sweep of expired rows, looking at no more than maxRows rows. */
  expire(maxRows: number): Promise<{ transactionId: string }>;
  /** The account's row, or null when the table has none. */
  readRow(account: string): Promise<AttestationRow | null>;
  /** Rows in account order from lowerBound (an account name, inclusive); nextLowerBound continues after the last, null at the end. */
  readRows(opts?: { lowerBound?: string; limit?: number }): Promise<{ rows: AttestationRow[]; nextLowerBound: string | null }>;
};

const U8 = z.number().int().min(0).max(255);
const SafeU64 = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const AccountName = z.string().refine(isValidAccountName, "must be an account name");
// Type ranges only: what the contract itself refuses (level 0, org 0, a past expiry, a bad
// country) is left to it, so the chain's own message says why.
const IssueInput = z.object({
  account: AccountName,
  org: SafeU64,
  level: U8,
  countryTier: U8,
  country: z.string().max(64),
  expires: z
    .date()
    .refine((d) => Number.isFinite(d.getTime()) && d.getTime() >= 0 && d.getTime() < 2 ** 32 * 1000, "must be a time_point_sec"),
  person: z.string().max(256),
  statusIndex: SafeU64,
});

/** nodeos prints a uint64 above 2^32 as a string. */
const ChainU64 = z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).pipe(SafeU64);
const ChainTime = z
  .string()
  .transform((s) => new Date(chainTimeMs(s)))
  .refine((d) => Number.isFinite(d.getTime()), "must be a time");
const STATUS = ["active", "suspended", "revoked"] as const;
const RowAnswer = z.object({
  account: z.string(),
  org: ChainU64,
  level: U8,
  country_tier: U8,
  country: z.string(),
  issued: ChainTime,
  expires: ChainTime,
  status: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  person: z.string(),
  status_index: ChainU64,
  updated: ChainTime,
});
const RowsAnswer = z.object({
  rows: z.array(RowAnswer),
  more: z.boolean(),
  next_key: z.union([z.string(), z.number()]).optional(),
});

const toRow = (r: z.infer<typeof RowAnswer>): AttestationRow => ({
  account: r.account,
  org: r.org,
  level: r.level,
  countryTier: r.country_tier,
  country: r.country,
  issued: r.issued,
  expires: r.expires,
  status: STATUS[r.status],
  person: r.person,
  statusIndex: r.status_index,
  updated: r.updated,
});

/** A name's primary key as nodeos reads a bound: a number is never mistaken for a name such as "12345". */
const primaryKey = (account: string) => Name.from(account).value.toString();

// Keys and signatures in any Antelope text form (nodeos quotes the provided keys when it refuses).
const KEYISH = /\b(?:(?:PUB|PVT|SIG)_[A-Z0-9]+_[1-9A-HJ-NP-Za-km-z]+|EOS[1-9A-HJ-NP-Za-km-z]{50}|5[HJK][1-9A-HJ-NP-Za-km-z]{49})\b/g;

/**
 * The chain's refusal in our envelope: antelope.ts's `rejected` (the exception's name and code in
 * details), plus the node's own text for the operator's log, keys and signatures cut out.
 */
function refused(r: ChainRejection, what: string): AppError {
  const base = rejected(r, what);
  const chainMessage = r.detail.replace(KEYISH, "[key]").slice(0, 500);
  return new AppError("PROVIDER_FAILURE", `${base.message.replace(/\.$/, "")}: ${chainMessage}`, { ...base.details, chainMessage });
}

function invalid(issues: z.core.$ZodIssue[]): AppError {
  return new AppError("VALIDATION_ERROR", "The attestation write is not valid.", {
    issues: issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
  });
}

export function createAttestationPublisher(config: AttestationConfig, opts: { fetch?: FetchFn } = {}): AttestationPublisher {
  const fetchFn = opts.fetch ?? fetch;
  const post = <T>(path: string, body: unknown) => chainPost<T>(fetchFn, config.apiUrl + path, body, config.timeoutMs);
  const authorization = [{ actor: config.issuer, permission: config.permission }];

  async function send(name: string, data: Record<string, unknown>): Promise<{ transactionId: string }> {
    const parsed = ChainInfo.safeParse(orFail(await post("/v1/chain/get_info", {}), "get_info request"));
    if (!parsed.success) throw new AppError("PROVIDER_FAILURE", "The chain node sent an unexpected get_info answer.");
    const info = parsed.data;
    // The same header (TaPoS on the last irreversible block, expiry from the head block time) as
    // every other transaction of ours, with the contract's action serialized by its ABI.
    const tx = Transaction.from({
      ...buildTransaction(info, []),
      actions: [Action.from({ account: config.contract, name, authorization, data }, ATTESTATION_ABI)],
    });
    const result = await post<{ transaction_id?: unknown }>(
      "/v1/chain/send_transaction",
      signAndPack(tx, info.chain_id, config.privateKey),
    );
    if (!result.ok) throw refused(result.rejection, `attestation ${name}`);
    const id = result.body.transaction_id;
    return { transactionId: typeof id === "string" && /^[0-9a-f]{64}$/i.test(id) ? id.toLowerCase() : tx.id.hexString };
  }

  const account = (value: string) => {
    const parsed = AccountName.safeParse(value);
    if (!parsed.success) throw invalid(parsed.error.issues.map((i) => ({ ...i, path: ["account"] })));
    return parsed.data;
  };
  const reason = (value: number) => {
    const parsed = U8.safeParse(value);
    if (!parsed.success) throw invalid(parsed.error.issues.map((i) => ({ ...i, path: ["reasonCode"] })));
    return parsed.data;
  };

  async function rows(body: Record<string, unknown>, what: string) {
    const result = await post("/v1/chain/get_table_rows", {
      code: config.contract,
      scope: config.contract,
      table: "attests",
      json: true,
      ...body,
    });
    if (!result.ok) throw refused(result.rejection, what);
    const parsed = RowsAnswer.safeParse(result.body);
    if (!parsed.success) throw new AppError("PROVIDER_FAILURE", "The chain node sent an unexpected attestation table answer.");
    return parsed.data;
  }

  return {
    async issue(row) {
      const parsed = IssueInput.safeParse(row);
      if (!parsed.success) throw invalid(parsed.error.issues);
      const r = parsed.data;
      return send("issue", {
        account: r.account,
        org: r.org,
        level: r.level,
        country_tier: r.countryTier,
        country: r.country,
        expires: r.expires.toISOString().slice(0, 19),
        person: r.person,
        status_index: r.statusIndex,
      });
    },
    suspend: async (name, reasonCode) => send("suspend", { account: account(name), reason_code: reason(reasonCode) }),
    reinstate: async (name) => send("reinstate", { account: account(name) }),
    revoke: async (name, reasonCode) => send("revoke", { account: account(name), reason_code: reason(reasonCode) }),
    remove: async (name) => send("remove", { account: account(name) }),
    async expire(maxRows) {
      const parsed = z.number().int().min(0).max(0xffffffff).safeParse(maxRows);
      if (!parsed.success) throw invalid(parsed.error.issues.map((i) => ({ ...i, path: ["maxRows"] })));
      return send("expire", { max_rows: parsed.data });
    },

    async readRow(name) {
      if (!isValidAccountName(name)) return null;
      const key = primaryKey(name);
      const answer = await rows({ lower_bound: key, upper_bound: key, limit: 1 }, "attestation query");
      const row = answer.rows[0];
      return row && row.account === name ? toRow(row) : null;
    },

    async readRows({ lowerBound, limit = 100 } = {}) {
      const bounded = z.number().int().min(1).max(1000).safeParse(limit);
      if (!bounded.success) throw invalid(bounded.error.issues.map((i) => ({ ...i, path: ["limit"] })));
      const answer = await rows(
        { ...(lowerBound === undefined ? {} : { lower_bound: primaryKey(account(lowerBound)) }), limit: bounded.data },
        "attestation query",
      );
      const next = answer.more ? String(answer.next_key ?? "") : "";
      // nodeos answers the next primary key as a number (or as a name when asked for key_type name).
      const nextLowerBound = /^\d+$/.test(next) ? Name.from(UInt64.from(next)).toString() : isValidAccountName(next) ? next : null;
      return { rows: answer.rows.map(toRow), nextLowerBound };
    },
  };
}

const AttestationEnvSchema = z.object({
  ATTESTATION_CONTRACT: name,
  ATTESTATION_ISSUER: name,
  ATTESTATION_PERMISSION: name.default("attest"),
  ATTESTATION_PRIVATE_KEY: privateKey,
  /** The node the contract is read and written through; defaults to CHAIN_API_URL (a sandbox deployment may name one while its accounts stay simulated). */
  ATTESTATION_API_URL: z.url().optional(),
  CHAIN_API_URL: z.url().optional(),
  CHAIN_HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
});

/**
 * The attestation publisher's settings, or null when ATTESTATION_CONTRACT is unset (publishing is
 * off). Throws one error naming every bad variable, never a value.
 */
export function attestationConfigFromEnv(source: Record<string, string | undefined> = process.env): AttestationConfig | null {
  const keys = new Set(["CHAIN_API_URL", "CHAIN_HTTP_TIMEOUT_MS"]);
  const cleaned = Object.fromEntries(
    Object.entries(source).filter(([k, v]) => (k.startsWith("ATTESTATION_") || keys.has(k)) && v !== undefined && v !== ""),
  );
  if (cleaned.ATTESTATION_CONTRACT === undefined) return null;
  const parsed = AttestationEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(attestation env)"}: ${i.message}`);
    throw new Error(`Invalid attestation environment:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const apiUrl = e.ATTESTATION_API_URL ?? e.CHAIN_API_URL;
  if (!apiUrl) throw new Error("Invalid attestation environment:\n  ATTESTATION_API_URL: is required without CHAIN_API_URL");
  return {
    apiUrl: apiUrl.replace(/\/+$/, ""),
    contract: e.ATTESTATION_CONTRACT,
    issuer: e.ATTESTATION_ISSUER,
    permission: e.ATTESTATION_PERMISSION,
    privateKey: PrivateKey.from(e.ATTESTATION_PRIVATE_KEY),
    timeoutMs: e.CHAIN_HTTP_TIMEOUT_MS,
  };
}
