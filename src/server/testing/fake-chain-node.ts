import crypto from "node:crypto";
import { PackedTransaction, PublicKey, Serializer, Signature, type Transaction } from "@wharfkit/antelope";
import { type AuthorityJson, SYSTEM_ABI, TOKEN_ABI } from "../providers/chain/abi";
import { startFakeServer } from "./fake-http";

export type FakePermission = { parent: string; auth: AuthorityJson };
export type FakeAccount = {
  name: string;
  created: string;
  permissions: Map<string, FakePermission>;
  ramBytes: number;
  netStake: string | null;
  cpuStake: string | null;
};

/** One decoded action: authorization as `actor@permission`, data as plain JSON. */
export type FakeAction = { account: string; name: string; authorization: string[]; data: any };

/** Every transaction posted, accepted or refused, as the node decoded it. */
export type FakeReceivedTransaction = {
  path: string;
  id: string;
  refBlockNum: number;
  refBlockPrefix: number;
  expiration: string;
  signatures: string[];
  /** Keys recovered from the signatures over chain id + transaction digest. */
  signedBy: string[];
  actions: FakeAction[];
  accepted: boolean;
  error?: string;
};

export type FakeTransferInput = {
  from: string;
  to: string;
  quantity: string;
  memo: string;
  irreversible?: boolean;
  contract?: string;
  /** Answer only `data` as hex, as a node without the token ABI does. */
  hexOnly?: boolean;
};

/** "ok" answers normally; "unavailable" answers 503 text like a load balancer with no node behind it. */
export type FakeChainMode = "ok" | "unavailable";

export type FakeChainNode = {
  url: string;
  chainId: string;
  accounts: Map<string, FakeAccount>;
  received: FakeReceivedTransaction[];
  requests: { path: string; body: unknown }[];
  addAccount(name: string, owner: AuthorityJson | string, active?: AuthorityJson | string): FakeAccount;
  addTransfer(t: FakeTransferInput): string;
  setMode(mode: FakeChainMode): void;
  close(): Promise<void>;
};

type NodeError = { status: number; json: unknown };

/** nodeos' error envelope: HTTP 500 with the chain exception's code and name. */
class ChainException extends Error {
  constructor(
    readonly code: number,
    readonly chainName: string,
    readonly what: string,
    detail: string,
  ) {
    super(detail);
  }
  toAnswer(): NodeError {
    return {
      status: 500,
      json: {
        code: 500,
        message: "Internal Service Error",
        error: {
          code: this.code,
          name: this.chainName,
          what: this.what,
          details: [{ message: this.message, file: "fake", line_number: 1, method: "fake" }],
        },
      },
    };
  }
}
const unsatisfied = (detail: string) =>
  new ChainException(
    3090003,
    "unsatisfied_authorization",
    "Provided keys, permissions, and delays do not satisfy declared authorizations",
    detail,
  );
const invalidAction = (detail: string) => new ChainException(3050000, "action_validate_exception", "Action validate exception", detail);

const keyAuth = (key: string): AuthorityJson => ({ threshold: 1, keys: [{ key, weight: 1 }], accounts: [], waits: [] });
const toAuth = (a: AuthorityJson | string) => (typeof a === "string" ? keyAuth(a) : a);
const nodeTime = (ms: number) => new Date(ms).toISOString().slice(0, -1);
// Leap prints K1 keys in the legacy form; the adapter must normalise them.
const printKey = (k: string) => (PublicKey.from(k).type === "K1" ? PublicKey.from(k).toLegacyString() : PublicKey.from(k).toString());

/**
 * A local stand-in for a nodeos chain API: get_info, get_account, send_transaction /
 * push_transaction (decoded with the eosio ABI, TAPoS and signatures checked, authorities
 * enforced, eosio::newaccount/buyrambytes/delegatebw/updateauth applied) and the legacy
 * /v1/history/get_transaction.
 */
export async function startFakeChainNode(opts: { chainId?: string } = {}): Promise<FakeChainNode> {
  const chainId = opts.chainId ?? crypto.createHash("sha256").update("fake chain").digest("hex");
  const accounts = new Map<string, FakeAccount>();
  const received: FakeReceivedTransaction[] = [];
  const requests: { path: string; body: unknown }[] = [];
  const transfers = new Map<string, { t: FakeTransferInput; blockNum: number }>();
  let head = 70_000; // past 2^16, so ref_block_num wraps as on a real chain
  let mode: FakeChainMode = "ok";
  const lib = () => head - 3;
  const blockId = (n: number) => {
    const id = crypto.createHash("sha256").update(`${chainId}:${n}`).digest();
    id.writeUInt32BE(n, 0);
    return id;
  };

  function addAccount(name: string, owner: AuthorityJson | string, active?: AuthorityJson | string): FakeAccount {
    const account: FakeAccount = {
      name,
      created: nodeTime(Date.now()),
      permissions: new Map([
        ["owner", { parent: "", auth: toAuth(owner) }],
        ["active", { parent: "owner", auth: toAuth(active ?? owner) }],
      ]),
      ramBytes: 0,
      netStake: null,
      cpuStake: null,
    };
    accounts.set(name, account);
    return account;
  }

  function satisfied(state: Map<string, FakeAccount>, actor: string, permission: string, keys: Set<string>, depth = 0): boolean {
    const auth = state.get(actor)?.permissions.get(permission)?.auth;
    if (!auth || depth > 4) return false;
    let weight = 0;
    for (const k of auth.keys) if (keys.has(PublicKey.from(k.key).toString())) weight += k.weight;
    for (const a of auth.accounts) if (satisfied(state, a.permission.actor, a.permission.permission, keys, depth + 1)) weight += a.weight;
    return weight >= auth.threshold;
  }

  function checkTapos(tx: Transaction) {
    const refNum = Number(tx.ref_block_num);
    const blockNum = head - ((head - refNum) & 0xffff);
    if (blockNum < 1 || blockId(blockNum).readUInt32LE(8) !== Number(tx.ref_block_prefix))
      throw new ChainException(
        3040007,
        "invalid_ref_block_exception",
        "Invalid Reference Block",
        "Transaction's reference block did not match.",
      );
    const now = Math.floor(Date.now() / 1000);
    const exp = tx.expiration.toMilliseconds() / 1000;
    if (exp <= now) throw new ChainException(3040005, "expired_tx_exception", "Expired Transaction", "expired transaction");
    if (exp > now + 3600) throw new ChainException(3040008, "tx_exp_too_far_exception", "Transaction Expiration Too Far", "too far");
  }

  function validateAuthority(state: Map<string, FakeAccount>, auth: AuthorityJson, what: string) {
    const total = auth.keys.reduce((s, k) => s + k.weight, 0) + auth.accounts.reduce((s, a) => s + a.weight, 0);
    if (auth.threshold < 1 || total < auth.threshold) throw invalidAction(`Invalid ${what} authority`);
    for (const a of auth.accounts)
      if (!state.get(a.permission.actor)?.permissions.has(a.permission.permission))
        throw invalidAction(`${what} references an unknown permission`);
  }

  /** Applies one eosio action to `state`, refusing what the system contract would refuse. */
  function apply(state: Map<string, FakeAccount>, a: FakeAction, keys: Set<string>) {
    if (a.account !== "eosio") throw invalidAction(`unexpected contract ${a.account}`);
    for (const level of a.authorization) {
      const [actor = "", permission = ""] = level.split("@");
      if (!satisfied(state, actor, permission, keys))
        throw unsatisfied(`transaction declares authority '${level}' but does not have signatures for it.`);
    }
    const authorizedBy = (actor: string, permission?: string) =>
      a.authorization.some((l) => l.split("@")[0] === actor && (!permission || l.split("@")[1] === permission));
    const d = a.data;
    switch (a.name) {
      case "newaccount": {
        if (!authorizedBy(d.creator))
          throw new ChainException(3090004, "missing_auth_exception", "Missing required authority", `missing authority of ${d.creator}`);
        if (state.has(d.name))
          throw new ChainException(
            3050001,
            "account_name_exists_exception",
            "Account name already exists",
            `Cannot create account named ${d.name}, as that name is already taken`,
          );
        validateAuthority(state, d.owner, "owner");
        validateAuthority(state, d.active, "active");
        state.set(d.name, {
          name: d.name,
          created: nodeTime(Date.now()),
          permissions: new Map([
            ["owner", { parent: "", auth: d.owner }],
            ["active", { parent: "owner", auth: d.active }],
          ]),
          ramBytes: 0,
          netStake: null,
          cpuStake: null,
        });
        return;
      }
      case "buyrambytes": {
        if (!authorizedBy(d.payer))
          throw new ChainException(3090004, "missing_auth_exception", "Missing required authority", `missing authority of ${d.payer}`);
        const receiver = state.get(d.receiver);
        if (!receiver || !(d.bytes > 0)) throw invalidAction("buyrambytes needs an existing receiver and positive bytes");
        receiver.ramBytes += d.bytes;
        return;
      }
      case "delegatebw": {
        if (!authorizedBy(d.from))
          throw new ChainException(3090004, "missing_auth_exception", "Missing required authority", `missing authority of ${d.from}`);
        const receiver = state.get(d.receiver);
        if (!receiver) throw invalidAction("delegatebw needs an existing receiver");
        receiver.netStake = d.stake_net_quantity;
        receiver.cpuStake = d.stake_cpu_quantity;
        return;
      }
      case "updateauth": {
        const account = state.get(d.account);
        const current = account?.permissions.get(d.permission);
        if (!account) throw invalidAction("updateauth on an unknown account");
        // The permission being changed (or its parent) must authorise the change.
        if (!authorizedBy(d.account, d.permission) && !(current && authorizedBy(d.account, current.parent)))
          throw new ChainException(
            3090005,
            "irrelevant_auth_exception",
            "Irrelevant authority included",
            "updateauth needs the permission's own authority",
          );
        validateAuthority(state, d.auth, d.permission);
        account.permissions.set(d.permission, { parent: d.parent, auth: d.auth });
        return;
      }
      default:
        throw invalidAction(`unexpected action eosio::${a.name}`);
    }
  }

  function cloneState(): Map<string, FakeAccount> {
    return new Map([...accounts].map(([k, v]) => [k, { ...v, permissions: new Map(v.permissions) }]));
  }

  function pushTransaction(path: string, body: any): unknown {
    let tx: Transaction;
    try {
      tx = PackedTransaction.from({ ...body, compression: body?.compression ?? 0 }).getTransaction();
    } catch {
      throw new ChainException(3015014, "pack_exception", "Pack data exception", "could not unpack the transaction");
    }
    const actions: FakeAction[] = tx.actions.map((act) => ({
      account: String(act.account),
      name: String(act.name),
      authorization: act.authorization.map((l) => `${l.actor}@${l.permission}`),
      data: (() => {
        try {
          return Serializer.objectify(act.decodeData(SYSTEM_ABI));
        } catch {
          return act.data.hexString;
        }
      })(),
    }));
    const record: FakeReceivedTransaction = {
      path,
      id: tx.id.hexString,
      refBlockNum: Number(tx.ref_block_num),
      refBlockPrefix: Number(tx.ref_block_prefix),
      expiration: tx.expiration.toString(),
      signatures: Array.isArray(body.signatures) ? body.signatures.map(String) : [],
      signedBy: [],
      actions,
      accepted: false,
    };
    received.push(record);
    try {
      const digest = tx.signingDigest(chainId);
      for (const s of record.signatures) {
        try {
          record.signedBy.push(Signature.from(s).recoverDigest(digest).toString());
        } catch {
          throw unsatisfied("a signature could not be recovered");
        }
      }
      checkTapos(tx);
      if (actions.length === 0) throw invalidAction("transaction has no actions");
      const state = cloneState();
      const keys = new Set(record.signedBy);
      for (const a of actions) apply(state, a, keys);
      accounts.clear();
      for (const [k, v] of state) accounts.set(k, v);
    } catch (err) {
      record.error = err instanceof ChainException ? err.chainName : "exception";
      throw err;
    }
    record.accepted = true;
    head += 1;
    return {
      transaction_id: record.id,
      processed: {
        id: record.id,
        block_num: head,
        block_time: nodeTime(Date.now()),
        receipt: { status: "executed", cpu_usage_us: 150, net_usage_words: 30 },
        elapsed: 150,
        net_usage: 240,
        scheduled: false,
        action_traces: actions.map((a) => ({ act: a, receiver: a.account })),
        account_ram_delta: null,
        except: null,
        error_code: null,
      },
    };
  }

  function accountAnswer(name: string) {
    const a = accounts.get(name);
    if (!a)
      throw new ChainException(
        3060002,
        "account_query_exception",
        "Account Query Exception",
        `unknown key (eosio::chain::name): (0 ${name})`,
      );
    return {
      account_name: a.name,
      head_block_num: head,
      created: a.created,
      ram_quota: a.ramBytes,
      net_weight: a.netStake,
      cpu_weight: a.cpuStake,
      permissions: [...a.permissions].map(([perm, p]) => ({
        perm_name: perm,
        parent: p.parent,
        required_auth: { ...p.auth, keys: p.auth.keys.map((k) => ({ key: printKey(k.key), weight: k.weight })) },
      })),
    };
  }

  function transactionAnswer(id: string) {
    const entry = transfers.get(String(id));
    if (!entry)
      throw new ChainException(3040011, "tx_not_found", "The transaction can not be found", `Transaction ${id} not found in history`);
    const { t, blockNum } = entry;
    const data = { from: t.from, to: t.to, quantity: t.quantity, memo: t.memo };
    const hex = Serializer.encode({ object: data, type: "transfer", abi: TOKEN_ABI }).hexString;
    const action = { account: t.contract ?? "eosio.token", name: "transfer", authorization: [{ actor: t.from, permission: "active" }] };
    return {
      id,
      block_num: blockNum,
      block_time: nodeTime(Date.now()),
      last_irreversible_block: t.irreversible ? blockNum + 1 : blockNum - 1,
      trx: {
        receipt: { status: "executed" },
        trx: { actions: [t.hexOnly ? { ...action, data: hex } : { ...action, data, hex_data: hex }] },
      },
      traces: [],
    };
  }

  function answer(path: string, body: any): NodeError {
    if (mode === "unavailable") return { status: 503, json: "Service Unavailable" };
    try {
      switch (path) {
        case "/v1/chain/get_info":
          head += 1;
          return {
            status: 200,
            json: {
              server_version: "fake",
              chain_id: chainId,
              head_block_num: head,
              last_irreversible_block_num: lib(),
              last_irreversible_block_id: blockId(lib()).toString("hex"),
              head_block_id: blockId(head).toString("hex"),
              head_block_time: nodeTime(Date.now()),
              head_block_producer: "eosio",
            },
          };
        case "/v1/chain/get_account":
          return { status: 200, json: accountAnswer(String(body?.account_name)) };
        case "/v1/chain/send_transaction":
        case "/v1/chain/push_transaction":
          return { status: 202, json: pushTransaction(path, body) };
        case "/v1/history/get_transaction":
          return { status: 200, json: transactionAnswer(String(body?.id)) };
        default:
          return {
            status: 404,
            json: { code: 404, message: "Not Found", error: { code: 0, name: "exception", what: "unspecified", details: [] } },
          };
      }
    } catch (err) {
      if (err instanceof ChainException) return err.toAnswer();
      return {
        status: 500,
        json: { code: 500, message: "Internal Service Error", error: { code: 0, name: "exception", what: String(err), details: [] } },
      };
    }
  }

  const server = await startFakeServer((r) => {
    let body: unknown;
    try {
      body = r.raw ? JSON.parse(r.raw) : {};
    } catch {
      body = undefined;
    }
    const path = r.path.split("?")[0]!;
    requests.push({ path, body });
    const out = answer(path, body);
    // A string is what a load balancer answers in front of the node: plain text, not JSON.
    return typeof out.json === "string" ? { status: out.status, body: out.json, headers: { "content-type": "text/plain" } } : out;
  });

  return {
    url: server.url,
    chainId,
    accounts,
    received,
    requests,
    addAccount,
    addTransfer(t) {
      const id = crypto.randomBytes(32).toString("hex");
      transfers.set(id, { t, blockNum: head });
      return id;
    },
    setMode(m) {
      mode = m;
    },
    close: server.close,
  };
}
