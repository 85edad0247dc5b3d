import type { AuthorityJson } from "./abi";

/** What the accounts and billing services need from an Antelope chain, real or simulated. */

export type ChainAccountState = {
  name: string;
  /** Normalised `PUB_K1_…` / `PUB_R1_…` keys on the owner permission. */
  ownerKeys: string[];
  activeKeys: string[];
  /** `account@permission` holding a weight on owner (the faucet), or null once unlocked. */
  ownerCosigner: string | null;
  createdAt?: string;
  /**
   * Every permission of the account (`owner`, `active` and any other) with its whole authority:
   * threshold, weighted keys (K1, R1 and WebAuthn), delegated `account@permission` entries, waits.
   * Proofs are checked against these (authority.ts).
   */
  permissions: Record<string, AuthorityJson>;
};

export type ChainTransfer = {
  id: string;
  from: string;
  to: string;
  quantity: string;
  memo: string;
  irreversible: boolean;
};

export type ChainAdapter = {
  /** "sandbox" for the simulated chain, else e.g. "eos", "wax", "telos" (did:antelope:<chain>:<name>). */
  chain: string;
  getInfo(): Promise<{ chainId: string; headBlockNum: number }>;
  getAccount(name: string): Promise<ChainAccountState | null>;
  /** Owner = the user's key + the faucet cosigner (either satisfies it); active = the user's active key. */
  createAccount(input: { name: string; ownerKey: string; activeKey: string }): Promise<{ transactionId: string }>;
  /**
   * Unlock: owner becomes the user's key only. When the owner already has no cosigner nothing is
   * sent and `transactionId` is "" (a retry after a crash between chain and database succeeds).
   */
  removeCosigner(name: string): Promise<{ transactionId: string }>;
  getTransfer(txId: string): Promise<ChainTransfer | null>;
};
