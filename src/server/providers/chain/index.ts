import { env, publicUrl } from "@/env";
import type { DbOrTx } from "../../db/client";
import { createAntelopeChain } from "./antelope";
import { type ChainConfig, chainConfigFromEnv } from "./config";
import { createSimulatedChain } from "./simulated";
import type { ChainAdapter } from "./types";

export { PROOF_ABI } from "./abi";
export type { AuthorityResolver } from "./authority";
export { chainReader, recoverSigners, SignatureProblem, satisfies } from "./authority";
export { chainConfigFromEnv } from "./config";
export { generateAccountName, isValidAccountName, parsePublicKey } from "./keys";
export { createSimulatedChain } from "./simulated";
export type { ChainAccountState, ChainAdapter } from "./types";

let realConfig: ChainConfig | undefined;

/** True when this process talks to the simulated chain kept in our database. */
export function usesSimulatedChain(): boolean {
  return env().BI_ENV === "sandbox" && !process.env.CHAIN_API_URL;
}

/** The name of this deployment's chain as account DIDs carry it (`did:antelope:<chain>:<name>`). */
export function deploymentChain(): string {
  if (usesSimulatedChain()) return "sandbox";
  realConfig ??= chainConfigFromEnv();
  return realConfig.chain;
}

/**
 * The chain of this deployment. Pass the transaction client when the call must commit or roll
 * back with the caller's rows (the simulated chain lives in the same database); the real chain
 * ignores it.
 */
export function chainAdapter(db: DbOrTx): ChainAdapter {
  if (usesSimulatedChain()) return createSimulatedChain(db);
  realConfig ??= chainConfigFromEnv();
  return createAntelopeChain(realConfig);
}

/**
 * The node API end users' wallets and browsers use for this deployment's chain: the simulated
 * chain's nodeos-compatible API under /v1/sandbox/chain, or CHAIN_PUBLIC_API_URL (else
 * CHAIN_API_URL) for a real chain.
 */
export function walletNodeUrl(): string {
  if (usesSimulatedChain()) return publicUrl("/v1/sandbox/chain");
  realConfig ??= chainConfigFromEnv();
  return realConfig.publicApiUrl;
}

/** Tests change CHAIN_* between cases; production code never calls this. */
export function resetChainConfigCache(): void {
  realConfig = undefined;
}
