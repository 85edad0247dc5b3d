import { Action } from "@wharfkit/antelope";
import { z } from "zod";
import { AppError, conflict, notFound } from "../../errors";
import { type AuthorityJson, parsePermissionLevel, TOKEN_ABI } from "./abi";
import { normaliseAuthorityKey } from "./authority";
import type { ChainConfig } from "./config";
import { type ChainRejection, chainPost, type FetchFn, orFail, rejected } from "./http";
import { isValidAccountName, nameTaken, parsePublicKey, requireKey, requireName } from "./keys";
import { buildTransaction, ChainInfo, chainTimeMs, type SystemAction, signAndPack } from "./transaction";
import type { ChainAccountState, ChainAdapter, ChainTransfer } from "./types";

const Authority = z.object({
  threshold: z.number(),
  keys: z.array(z.object({ key: z.string(), weight: z.number() })),
  accounts: z.array(z.object({ permission: z.object({ actor: z.string(), permission: z.string() }), weight: z.number() })),
  waits: z.array(z.object({ wait_sec: z.number(), weight: z.number() })).default([]),
});
const AccountAnswer = z.object({
  account_name: z.string(),
  created: z.string().optional(),
  permissions: z.array(z.object({ perm_name: z.string(), required_auth: Authority })),
});
// Legacy history_plugin and Hyperion's /v1 layer answer get_transaction in this shape.
const TransactionAnswer = z.object({
  id: z.string(),
  block_num: z.number(),
  last_irreversible_block: z.number(),
  trx: z
    .object({ trx: z.object({ actions: z.array(z.unknown()) }).partial() })
    .partial()
    .optional(),
  traces: z.array(z.object({ act: z.unknown() }).partial()).optional(),
});
const RawAction = z.object({ account: z.string(), name: z.string(), data: z.unknown(), hex_data: z.string().optional() });
const TransferData = z.object({ from: z.string(), to: z.string(), quantity: z.string(), memo: z.string() });

const isUnknownAccount = (r: ChainRejection) =>
  ["account_query_exception", "unknown_key_exception"].includes(r.name) || /unknown key|not found/i.test(r.detail);
const isUnknownTransaction = (r: ChainRejection) =>
  ["unknown_transaction_exception", "tx_not_found"].includes(r.name) || /not found|unknown transaction/i.test(r.detail);

const keyAuthority = (key: string): AuthorityJson => ({ threshold: 1, keys: [{ key, weight: 1 }], accounts: [], waits: [] });

/**
 * A real Antelope chain (EOS, WAX, Telos…) through a node's HTTP API. The sponsor pays for new
 * accounts; the faucet cosigner shares their owner permission until unlock.
 */
export function createAntelopeChain(config: ChainConfig, opts: { fetch?: FetchFn } = {}): ChainAdapter {
  const fetchFn = opts.fetch ?? fetch;
  const post = <T>(path: string, body: unknown, base = config.apiUrl) => chainPost<T>(fetchFn, base + path, body, config.timeoutMs);

  async function info(): Promise<ChainInfo> {
    const parsed = ChainInfo.safeParse(orFail(await post("/v1/chain/get_info", {}), "get_info request"));
    if (!parsed.success) throw new AppError("PROVIDER_FAILURE", "The chain node sent an unexpected get_info answer.");
    return parsed.data;
  }

  async function send(actions: SystemAction[], key: typeof config.sponsorKey, what: string): Promise<{ transactionId: string }> {
    const chainInfo = await info();
    const tx = buildTransaction(chainInfo, actions);
    const result = await post<{ transaction_id?: unknown }>("/v1/chain/send_transaction", signAndPack(tx, chainInfo.chain_id, key));
    if (!result.ok) {
      if (result.rejection.name === "account_name_exists_exception") throw nameTaken();
      throw rejected(result.rejection, what);
    }
    const id = result.body.transaction_id;
    return { transactionId: typeof id === "string" && /^[0-9a-f]{64}$/i.test(id) ? id.toLowerCase() : tx.id.hexString };
  }

  async function getAccount(name: string): Promise<ChainAccountState | null> {
    if (!isValidAccountName(name)) return null;
    const result = await post("/v1/chain/get_account", { account_name: name });
    if (!result.ok) {
      if (isUnknownAccount(result.rejection)) return null;
      throw rejected(result.rejection, "account query");
    }
    const parsed = AccountAnswer.safeParse(result.body);
    if (!parsed.success) throw new AppError("PROVIDER_FAILURE", "The chain node sent an unexpected account answer.");
    const perm = (n: string) => parsed.data.permissions.find((p) => p.perm_name === n)?.required_auth;
    const keysOf = (n: string) => (perm(n)?.keys ?? []).map((k) => parsePublicKey(k.key)).filter((k): k is string => k !== null);
    const cosigners = (perm("owner")?.accounts ?? []).map((a) => `${a.permission.actor}@${a.permission.permission}`);
    const created = parsed.data.created;
    const permissions = Object.fromEntries(
      parsed.data.permissions.map((p) => [
        p.perm_name,
        {
          ...p.required_auth,
          keys: p.required_auth.keys.flatMap((k) => {
            const key = normaliseAuthorityKey(k.key);
            return key ? [{ key, weight: k.weight }] : [];
          }),
        },
      ]),
    );
    return {
      name: parsed.data.account_name,
      ownerKeys: keysOf("owner"),
      activeKeys: keysOf("active"),
      ownerCosigner: cosigners.find((c) => c === config.cosigner) ?? cosigners[0] ?? null,
      permissions,
      ...(created && Number.isFinite(chainTimeMs(created)) ? { createdAt: new Date(chainTimeMs(created)).toISOString() } : {}),
    };
  }

  function readTransfer(raw: unknown): z.infer<typeof TransferData> | null {
    const action = RawAction.safeParse(raw);
    if (!action.success || action.data.account !== config.tokenContract || action.data.name !== "transfer") return null;
    const inline = TransferData.safeParse(action.data.data);
    if (inline.success) return inline.data;
    // A node without the token ABI returns only hex.
    const hex = typeof action.data.data === "string" ? action.data.data : action.data.hex_data;
    if (!hex) return null;
    try {
      const decoded = Action.from({ account: action.data.account, name: "transfer", authorization: [], data: hex }).decodeData(TOKEN_ABI);
      const parsed = TransferData.safeParse(JSON.parse(JSON.stringify(decoded)));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  return {
    chain: config.chain,

    async getInfo() {
      const i = await info();
      return { chainId: i.chain_id.toLowerCase(), headBlockNum: i.head_block_num };
    },

    getAccount,

    createAccount(input) {
      const name = requireName(input.name, "name");
      const ownerKey = requireKey(input.ownerKey, "ownerKey");
      const activeKey = requireKey(input.activeKey, "activeKey");
      const sponsor = config.sponsor.actor;
      const auth = [config.sponsor];
      // Threshold 1: the user's key alone or the faucet alone satisfies owner. The faucet must be
      // able to unlock without the user's signature, and the user keeps full control of active.
      const owner: AuthorityJson = {
        ...keyAuthority(ownerKey),
        accounts: [{ permission: parsePermissionLevel(config.cosigner), weight: 1 }],
      };
      return send(
        [
          { name: "newaccount", authorization: auth, data: { creator: sponsor, name, owner, active: keyAuthority(activeKey) } },
          { name: "buyrambytes", authorization: auth, data: { payer: sponsor, receiver: name, bytes: config.ramBytes } },
          {
            name: "delegatebw",
            authorization: auth,
            // transfer=false: the stake stays the sponsor's and can be reclaimed from dormant accounts.
            data: {
              from: sponsor,
              receiver: name,
              stake_net_quantity: config.netStake,
              stake_cpu_quantity: config.cpuStake,
              transfer: false,
            },
          },
        ],
        config.sponsorKey,
        "account creation",
      );
    },

    async removeCosigner(name) {
      const account = await getAccount(requireName(name, "name"));
      if (!account) throw notFound("The chain account");
      if (account.ownerCosigner === null) return { transactionId: "" };
      // The owner authority as the user left it (thresholds, weights, WebAuthn keys, other
      // delegations), less the faucet: unlock takes our say away and changes nothing else.
      const owner = account.permissions.owner;
      const cosigner = account.ownerCosigner;
      const auth: AuthorityJson = {
        threshold: owner?.threshold ?? 1,
        keys: owner?.keys ?? [],
        accounts: (owner?.accounts ?? []).filter((a) => `${a.permission.actor}@${a.permission.permission}` !== cosigner),
        waits: owner?.waits ?? [],
      };
      const reachable = [...auth.keys, ...auth.accounts].reduce((sum, x) => sum + x.weight, 0);
      if (auth.keys.length === 0 || reachable < auth.threshold)
        throw conflict(
          "no_owner_key",
          "Without the cosigner the owner permission could not be satisfied; removing it would lock the account.",
        );
      return send(
        [
          {
            name: "updateauth",
            authorization: [{ actor: name, permission: "owner" }],
            data: { account: name, permission: "owner", parent: "", auth },
          },
        ],
        config.cosignerKey,
        "unlock",
      );
    },

    async getTransfer(txId): Promise<ChainTransfer | null> {
      if (!/^[0-9a-f]{64}$/i.test(txId)) return null;
      const result = await post("/v1/history/get_transaction", { id: txId.toLowerCase() }, config.historyApiUrl);
      if (!result.ok) {
        if (isUnknownTransaction(result.rejection)) return null;
        throw rejected(result.rejection, "transaction query");
      }
      const parsed = TransactionAnswer.safeParse(result.body);
      if (!parsed.success) throw new AppError("PROVIDER_FAILURE", "The history node sent an unexpected transaction answer.");
      const t = parsed.data;
      const candidates = [...(t.trx?.trx?.actions ?? []), ...(t.traces ?? []).map((tr) => tr.act)];
      const transfer = candidates.map(readTransfer).find((x) => x !== null);
      if (!transfer) return null;
      return { id: t.id.toLowerCase(), ...transfer, irreversible: t.block_num <= t.last_irreversible_block };
    },
  };
}
