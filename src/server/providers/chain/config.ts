import { Asset, PrivateKey } from "@wharfkit/antelope";
import { z } from "zod";
import { isValidAccountName } from "./keys";

/** An account name in the environment (also the attestation publisher's, attestation.ts). */
export const name = z.string().refine(isValidAccountName, "must be an account name");
const permissionLevel = z.string().regex(/^[a-z1-5.]{1,12}@[a-z1-5.]{1,12}$/, "must be account@permission");
// Never echo the value: the messages of this schema end up in start-up errors and logs.
export const privateKey = z.string().refine((s) => {
  try {
    PrivateKey.from(s);
    return true;
  } catch {
    return false;
  }
}, "must be a PVT_K1_/PVT_R1_ or WIF private key");
const asset = z.string().refine((s) => {
  try {
    return Asset.from(s).value >= 0;
  } catch {
    return false;
  }
}, 'must be an asset such as "0.1000 EOS"');
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const ChainEnvSchema = z
  .object({
    CHAIN_API_URL: z.url(),
    /** History API (legacy history_plugin or Hyperion's /v1 layer); defaults to CHAIN_API_URL. */
    CHAIN_HISTORY_API_URL: z.url().optional(),
    /** The node URL end users' browsers and wallets talk to (the hosted bind page); defaults to CHAIN_API_URL. */
    CHAIN_PUBLIC_API_URL: z.url().optional(),
    CHAIN_NAME: z.string().regex(/^[a-z0-9-]{1,32}$/, "must be a short lower-case chain name such as eos, wax, telos"),
    CHAIN_SPONSOR_ACCOUNT: name,
    CHAIN_SPONSOR_PERMISSION: name.default("active"),
    CHAIN_SPONSOR_PRIVATE_KEY: privateKey,
    /** Defaults to the sponsor's own permission. */
    CHAIN_FAUCET_COSIGNER: permissionLevel.optional(),
    /** Signs unlocks; defaults to the sponsor key (the usual case: the sponsor is the faucet). */
    CHAIN_FAUCET_COSIGNER_PRIVATE_KEY: privateKey.optional(),
    CHAIN_RAM_BYTES: positiveInt(4096),
    CHAIN_NET_STAKE: asset,
    CHAIN_CPU_STAKE: asset,
    /** Only transfers of this contract count as payments (anyone can deploy a fake "EOS"). */
    CHAIN_TOKEN_CONTRACT: name.default("eosio.token"),
    CHAIN_HTTP_TIMEOUT_MS: positiveInt(10_000),
  })
  .superRefine((e, ctx) => {
    if (e.CHAIN_NAME === "sandbox") ctx.addIssue({ code: "custom", path: ["CHAIN_NAME"], message: "sandbox is the simulated chain" });
    const net = Asset.from(e.CHAIN_NET_STAKE);
    const cpu = Asset.from(e.CHAIN_CPU_STAKE);
    if (!net.symbol.equals(cpu.symbol))
      ctx.addIssue({ code: "custom", path: ["CHAIN_CPU_STAKE"], message: "must use the same symbol as CHAIN_NET_STAKE" });
    else if (net.value + cpu.value <= 0)
      ctx.addIssue({ code: "custom", path: ["CHAIN_NET_STAKE"], message: "delegatebw needs a positive total stake" });
  });

export type ChainConfig = {
  apiUrl: string;
  historyApiUrl: string;
  publicApiUrl: string;
  chain: string;
  sponsor: { actor: string; permission: string };
  sponsorKey: PrivateKey;
  cosigner: string;
  cosignerKey: PrivateKey;
  ramBytes: number;
  netStake: string;
  cpuStake: string;
  tokenContract: string;
  timeoutMs: number;
};

/** Reads the real chain's settings; throws one error naming every bad variable (never values). */
export function chainConfigFromEnv(source: Record<string, string | undefined> = process.env): ChainConfig {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([k, v]) => k.startsWith("CHAIN_") && v !== ""));
  const parsed = ChainEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(chain env)"}: ${i.message}`);
    throw new Error(`Invalid chain environment:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const sponsorKey = PrivateKey.from(e.CHAIN_SPONSOR_PRIVATE_KEY);
  return {
    apiUrl: e.CHAIN_API_URL.replace(/\/+$/, ""),
    historyApiUrl: (e.CHAIN_HISTORY_API_URL ?? e.CHAIN_API_URL).replace(/\/+$/, ""),
    publicApiUrl: (e.CHAIN_PUBLIC_API_URL ?? e.CHAIN_API_URL).replace(/\/+$/, ""),
    chain: e.CHAIN_NAME,
    sponsor: { actor: e.CHAIN_SPONSOR_ACCOUNT, permission: e.CHAIN_SPONSOR_PERMISSION },
    sponsorKey,
    cosigner: e.CHAIN_FAUCET_COSIGNER ?? `${e.CHAIN_SPONSOR_ACCOUNT}@${e.CHAIN_SPONSOR_PERMISSION}`,
    cosignerKey: e.CHAIN_FAUCET_COSIGNER_PRIVATE_KEY ? PrivateKey.from(e.CHAIN_FAUCET_COSIGNER_PRIVATE_KEY) : sponsorKey,
    ramBytes: e.CHAIN_RAM_BYTES,
    netStake: Asset.from(e.CHAIN_NET_STAKE).toString(),
    cpuStake: Asset.from(e.CHAIN_CPU_STAKE).toString(),
    tokenContract: e.CHAIN_TOKEN_CONTRACT,
    timeoutMs: e.CHAIN_HTTP_TIMEOUT_MS,
  };
}
