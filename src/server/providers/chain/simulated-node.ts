import { createHash } from "node:crypto";
import { inflateSync } from "node:zlib";
import { type Action, Bytes, type Name, Serializer, Transaction } from "@wharfkit/antelope";
import type { Db, DbOrTx } from "../../db/client";
import { type AuthorityJson, PROOF_ABI, SYSTEM_ABI } from "./abi";
import { recoverSigners, SignatureProblem, satisfies } from "./authority";
import { isValidAccountName } from "./keys";
import { createSimulatedChain, SANDBOX_CHAIN_ID } from "./simulated";
import { simulatedUpdateAuth } from "./simulated-updateauth";

/**
 * The sandbox chain behind the calls a node's HTTP API answers (`/v1/chain/…`), so wallet code
 * (WharfKit's SessionKit and wallet plugins) runs unmodified against it (docs/api/guides/sandbox.md,
 * "A chain your wallet code can talk to"). What it keeps is the simulated chain's: accounts and
 * their authorities. It executes one kind of transaction, `eosio::updateauth`, checked against the
 * account's authority as a node checks it; the bind challenge's `bindproof` action is never
 * executed, as on a real chain.
 */

/** What a node answers when it refuses: its own error envelope, which wallet libraries read. */
export class NodeError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly errName: string,
    readonly what: string,
    readonly detail: string,
  ) {
    super(detail);
  }

  get body() {
    return {
      code: this.status,
      message: this.status === 500 ? "Internal Service Error" : "Bad Request",
      error: {
        code: this.code,
        name: this.errName,
        what: this.what,
        details: [{ message: this.detail, file: "", line_number: 0, method: "" }],
      },
    };
  }
}

const unknownAccount = (name: string) =>
  new NodeError(500, 3060002, "account_query_exception", "Account Query Exception", `unknown key (eosio::chain::name): ${name}`);

const abiOf = (account: string) => (account === "" ? PROOF_ABI : account === "eosio" ? SYSTEM_ABI : null);

const blockId = (num: number) =>
  num.toString(16).padStart(8, "0") + createHash("sha256").update(`bind-identity sandbox block ${num}`).digest("hex").slice(8);
const chainTime = (d: Date) => d.toISOString().slice(0, 23);

export function nodeInfo(now = new Date()) {
  const head = Math.floor(now.getTime() / 500);
  const lib = head - 4;
  return {
    server_version: "bind-identity-sandbox",
    chain_id: SANDBOX_CHAIN_ID,
    head_block_num: head,
    last_irreversible_block_num: lib,
    last_irreversible_block_id: blockId(lib),
    head_block_id: blockId(head),
    head_block_time: chainTime(now),
    head_block_producer: "eosio",
    virtual_block_cpu_limit: 200_000_000,
    virtual_block_net_limit: 1_048_576_000,
    block_cpu_limit: 200_000,
    block_net_limit: 1_048_576,
    server_version_string: "v5.0.0-bind-identity-sandbox",
    fork_db_head_block_num: head,
    fork_db_head_block_id: blockId(head),
  };
}

export async function nodeAccount(db: DbOrTx, name: string) {
  const state = isValidAccountName(name) ? await createSimulatedChain(db).getAccount(name) : null;
  if (!state) throw unknownAccount(name);
  const now = new Date();
  const info = nodeInfo(now);
  const limit = { used: 0, available: 1_000_000, max: 1_000_000 };
  const created = chainTime(new Date(state.createdAt ?? now));
  return {
    account_name: state.name,
    head_block_num: info.head_block_num,
    head_block_time: info.head_block_time,
    privileged: false,
    last_code_update: "1970-01-01T00:00:00.000",
    created,
    ram_quota: 8192,
    net_weight: 0,
    cpu_weight: 0,
    net_limit: limit,
    cpu_limit: limit,
    ram_usage: 3000,
    permissions: Object.entries(state.permissions).map(([perm, auth]) => ({
      perm_name: perm,
      parent: perm === "owner" ? "" : "owner",
      required_auth: auth,
      linked_actions: [],
    })),
    total_resources: null,
    self_delegated_bandwidth: null,
    refund_request: null,
    voter_info: null,
    rex_info: null,
  };
}

export function nodeRawAbi(account: string) {
  const abi = abiOf(account);
  const encoded = abi ? Buffer.from(Serializer.encode({ object: abi }).array) : Buffer.alloc(0);
  return {
    account_name: account,
    code_hash: "0".repeat(64),
    abi_hash: createHash("sha256").update(encoded).digest("hex"),
    abi: encoded.toString("base64"),
  };
}

export function nodeAbi(account: string) {
  const abi = abiOf(account);
  return { account_name: account, ...(abi ? { abi: JSON.parse(JSON.stringify(abi)) } : {}) };
}

/** The keys among `available` that a node would ask to sign: those the authorizations' authorities name, delegations followed. */
export async function nodeRequiredKeys(db: DbOrTx, input: { transaction: unknown; available_keys: string[] }) {
  let tx: Transaction;
  try {
    tx = Transaction.from(input.transaction as never);
  } catch {
    throw new NodeError(400, 3050003, "eosio_assert_message_exception", "Invalid transaction", "the transaction cannot be read");
  }
  const chain = createSimulatedChain(db);
  const needed = new Set<string>();
  const walk = async (actor: string, permission: string, depth: number): Promise<void> => {
    const auth = (await chain.getAccount(actor))?.permissions[permission];
    if (!auth || depth > 6) return;
    for (const k of auth.keys) if (input.available_keys.includes(k.key)) needed.add(k.key);
    for (const a of auth.accounts) await walk(a.permission.actor, a.permission.permission, depth + 1);
  };
  for (const action of tx.actions) for (const level of action.authorization) await walk(String(level.actor), String(level.permission), 0);
  return { required_keys: [...needed] };
}

const UpdateAuthData = (action: Action) =>
  action.decodeData(SYSTEM_ABI) as unknown as {
    account: Name;
    permission: Name;
    parent: Name;
    auth: {
      threshold: number;
      keys: { key: unknown; weight: number }[];
      accounts: AuthorityJson["accounts"];
      waits: AuthorityJson["waits"];
    };
  };

/**
 * `send_transaction` / `push_transaction`: a signed transaction of `eosio::updateauth` actions,
 * each authorised by the permission it changes or by owner, with signatures that satisfy that
 * authority as it stands. The bind challenge's proof action and anything else is refused, as a
 * node refuses an action on a contract that does not exist.
 */
export async function nodePushTransaction(db: Db, input: { signatures?: string[]; packed_trx?: string; compression?: unknown }) {
  let tx: Transaction;
  try {
    // Wallet libraries send it zlib-compressed by default (compression 1 or "zlib").
    const zipped = input.compression === 1 || input.compression === "zlib";
    if (!zipped && input.compression && input.compression !== "none" && input.compression !== 0) throw new Error("compression");
    const packed = Buffer.from(input.packed_trx ?? "", "hex");
    tx = Serializer.decode({ data: Bytes.from(new Uint8Array(zipped ? inflateSync(packed) : packed)), type: Transaction });
  } catch {
    throw new NodeError(
      400,
      3020000,
      "transaction_exception",
      "Transaction exception",
      "packed_trx is not a packed transaction (none or zlib)",
    );
  }
  if (tx.expiration.toMilliseconds() <= Date.now())
    throw new NodeError(500, 3040005, "expired_tx_exception", "Expired Transaction", "expired transaction");
  let keys: string[];
  try {
    keys = recoverSigners(tx.signingDigest(SANDBOX_CHAIN_ID), input.signatures ?? []);
  } catch (err) {
    if (err instanceof SignatureProblem) throw new NodeError(500, 3010003, "signature_type_exception", "Invalid signature", err.message);
    throw err;
  }
  const chain = createSimulatedChain(db);
  const resolve = async (actor: string, permission: string) => (await chain.getAccount(actor))?.permissions[permission] ?? null;
  const updates: { account: string; permission: string; auth: AuthorityJson }[] = [];
  for (const action of tx.actions) {
    if (!action.account.equals("eosio") || !action.name.equals("updateauth")) {
      const contract = action.account.toString();
      throw new NodeError(
        500,
        3050003,
        "eosio_assert_message_exception",
        "eosio_assert_message assertion failure",
        contract === ""
          ? "the bind proof action is never executed"
          : `the sandbox chain executes only eosio::updateauth, not ${contract}::${action.name}`,
      );
    }
    const data = UpdateAuthData(action);
    const account = data.account.toString();
    const permission = data.permission.toString();
    const level = action.authorization[0];
    if (
      action.authorization.length !== 1 ||
      !level!.actor.equals(account) ||
      !(level!.permission.equals(permission) || level!.permission.equals("owner"))
    )
      throw new NodeError(500, 3090004, "missing_auth_exception", "Missing required authority", `missing authority of ${account}`);
    const authority = await resolve(account, level!.permission.toString());
    if (!authority) throw unknownAccount(account);
    if (!(await satisfies(authority, keys, resolve)).satisfied)
      throw new NodeError(
        401,
        3090003,
        "unsatisfied_authorization",
        "Provided keys, permissions, and delays do not satisfy declared authorizations",
        `transaction declares authority '${level!.actor}@${level!.permission}', but does not have signatures for it.`,
      );
    updates.push({
      account,
      permission,
      auth: { ...data.auth, keys: data.auth.keys.map((k) => ({ key: String(k.key), weight: k.weight })) } as AuthorityJson,
    });
  }
  // All of the transaction's actions apply, or none: a later invalid authority undoes the earlier ones.
  await db.$transaction(async (tx) => {
    for (const u of updates)
      await simulatedUpdateAuth(tx, u.account, { authorities: { [u.permission]: JSON.parse(JSON.stringify(u.auth)) } });
  });
  const id = tx.id.hexString;
  return { transaction_id: id, processed: { id, block_num: nodeInfo().head_block_num, receipt: { status: "executed" }, except: null } };
}
