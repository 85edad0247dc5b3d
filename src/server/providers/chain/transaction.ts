import { Action, type PrivateKey, Serializer, Transaction } from "@wharfkit/antelope";
import { z } from "zod";
import { SYSTEM_ABI } from "./abi";

export const ChainInfo = z.object({
  chain_id: z.string().regex(/^[0-9a-f]{64}$/i),
  head_block_num: z.number().int().nonnegative(),
  head_block_time: z.string(),
  last_irreversible_block_num: z.number().int().nonnegative(),
  last_irreversible_block_id: z.string().regex(/^[0-9a-f]{64}$/i),
});
export type ChainInfo = z.infer<typeof ChainInfo>;

export type SystemAction = {
  name: "newaccount" | "buyrambytes" | "delegatebw" | "updateauth";
  authorization: { actor: string; permission: string }[];
  data: Record<string, unknown>;
};

/** Nodes print block times without a zone; they are UTC. */
export function chainTimeMs(time: string): number {
  return Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(time) ? time : `${time}Z`);
}

/**
 * An eosio transaction with TAPoS on the last irreversible block (a fork can never orphan the
 * reference), expiring a minute after the node's head block time rather than our clock.
 */
export function buildTransaction(info: ChainInfo, actions: SystemAction[], expiresInSec = 60): Transaction {
  const lib = Buffer.from(info.last_irreversible_block_id, "hex");
  return Transaction.from({
    expiration: Math.floor(chainTimeMs(info.head_block_time) / 1000) + expiresInSec,
    ref_block_num: info.last_irreversible_block_num & 0xffff,
    ref_block_prefix: lib.readUInt32LE(8),
    max_net_usage_words: 0,
    max_cpu_usage_ms: 0,
    delay_sec: 0,
    context_free_actions: [],
    actions: actions.map((a) => Action.from({ account: "eosio", ...a }, SYSTEM_ABI)),
    transaction_extensions: [],
  });
}

/** The body of /v1/chain/send_transaction: the packed transaction signed over chain id + digest. */
export function signAndPack(tx: Transaction, chainId: string, key: PrivateKey) {
  const signature = key.signDigest(tx.signingDigest(chainId));
  return {
    signatures: [signature.toString()],
    compression: 0,
    packed_context_free_data: "",
    packed_trx: Serializer.encode({ object: tx }).hexString,
  };
}
