import { z } from "zod";
import { AppError } from "../../errors";
import { usesSimulatedChain } from "../../providers/chain";
import {
  NodeError,
  nodeAbi,
  nodeAccount,
  nodeInfo,
  nodePushTransaction,
  nodeRawAbi,
  nodeRequiredKeys,
} from "../../providers/chain/simulated-node";
import { reply, route } from "../route";
import type { PipelineState, RouteDef } from "../types";

/**
 * The sandbox chain as a node's HTTP API, under `/v1/sandbox/chain` (the `url` of a WharfKit
 * chain definition): public, as a node is, in the sandbox only and only while the simulated chain
 * is the deployment's chain. Answers and refusals are in the node's own shapes, which wallet
 * libraries read (docs/api/guides/sandbox.md, "A chain your wallet code can talk to").
 */
const BASE = "/v1/sandbox/chain/v1/chain";

async function answer(run: () => unknown) {
  if (!usesSimulatedChain()) throw new AppError("NOT_FOUND", "This deployment talks to a real chain; use its node.");
  try {
    return reply(200, await run());
  } catch (err) {
    if (err instanceof NodeError) return reply(err.status, err.body);
    throw err;
  }
}

const AccountName = z.object({ account_name: z.string().max(13) }).loose();
function node<B extends z.ZodType | undefined = undefined>(
  method: "GET" | "POST",
  call: string,
  summary: string,
  body: B,
  handler: (i: { body: B extends z.ZodType ? z.output<B> : undefined; state: PipelineState }) => unknown,
) {
  return route({
    method,
    path: `${BASE}/${call}`,
    auth: "public",
    tag: "Sandbox",
    sandboxOnly: true,
    foreignProtocol: "Antelope node HTTP API (nodeos /v1/chain)",
    summary: `Sandbox chain node: ${summary}`,
    body,
    errors: ["NOT_FOUND"],
    handler: (input) => answer(() => handler(input as never)),
  });
}

export const sandboxNodeRoutes: RouteDef[] = [
  node("GET", "get_info", "the chain id and head block, as nodeos answers get_info.", undefined, () => nodeInfo()),
  node("POST", "get_info", "the chain id and head block, as nodeos answers get_info.", undefined, () => nodeInfo()),
  node("POST", "get_account", "an account with every permission's authority.", AccountName, ({ body, state }) =>
    nodeAccount(state.db, body.account_name),
  ),
  node("POST", "get_raw_abi", "the ABI of the bind proof action (the empty name) or of eosio.", AccountName, ({ body }) =>
    nodeRawAbi(body.account_name),
  ),
  node("POST", "get_abi", "the ABI of the bind proof action (the empty name) or of eosio, as JSON.", AccountName, ({ body }) =>
    nodeAbi(body.account_name),
  ),
  node(
    "POST",
    "get_required_keys",
    "which of the available keys the transaction's authorizations name.",
    z.object({ transaction: z.unknown(), available_keys: z.array(z.string().max(4000)).max(64) }),
    ({ body, state }) => nodeRequiredKeys(state.db, body),
  ),
  ...["send_transaction", "push_transaction"].map((call) =>
    node(
      "POST",
      call,
      "executes eosio::updateauth signed by the account's authority; nothing else executes.",
      z
        .object({
          signatures: z.array(z.string().max(4000)).max(16),
          packed_trx: z.string().max(100_000),
          compression: z.union([z.string(), z.number()]).optional(),
          packed_context_free_data: z.string().max(100_000).optional(),
        })
        .loose(),
      ({ body, state }) => nodePushTransaction(state.db, body),
    ),
  ),
];
