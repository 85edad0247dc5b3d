import crypto from "node:crypto";
import { createRequire } from "node:module";
import { type Account, AccountPermission, type Blockchain, nameToBigInt } from "@proton/vert";
import { ABI, Name, PackedTransaction, PublicKey, Serializer, Signature, type Transaction, UInt64 } from "@wharfkit/antelope";
import { z } from "zod";
import { addSeconds, chainAt, deploy } from "../../../contracts/vert";
import { type FakeAnswer, startFakeServer } from "./fake-http";

/**
 * A nodeos chain API over a VeRT `Blockchain` running the committed contract builds: the service's
 * real chain code (get_info, a transaction built, signed and packed, send_transaction) talks to it
 * over HTTP and the contract's own WASM decides. Checked as nodeos checks: expiration against the
 * emulator's clock, TaPoS, duplicates, signatures recovered over this chain id against the keys of
 * the declared permissions (keys and account delegations), permissions linked to actions
 * (linkauth), irrelevant signatures. Not modelled: resources (CPU, NET, RAM), delays and waits,
 * context-free actions, transaction extensions, secondary indexes and reverse order of
 * get_table_rows, producers and forks (every applied transaction is a block, irreversible three
 * blocks later; blocks do not move the clock: the head block time is the emulator's clock, which
 * moves only when a test moves it). Stricter than nodeos: an action's data must read as the
 * contract's ABI, and only actions of deployed contracts are accepted. Accounts made with VeRT's
 * own createAccount(s) have no keys: actions may name them, no signature satisfies them.
 */

/** The chain id signatures are checked against unless told otherwise: sha256("vert node"). */
const DEFAULT_CHAIN_ID = crypto.createHash("sha256").update("vert node").digest("hex");
/** The writing actions of the attestation contract: the issuer's permission is linked to them, as the guide deploys it. */
const ATTESTATION_WRITES = ["issue", "suspend", "reinstate", "revoke", "expire", "remove"];
const MAX_TRX_LIFETIME_SEC = 3600;
const MAX_AUTHORITY_DEPTH = 6;

type KeyLike = string | PublicKey;
type AuthorityJson = {
  threshold: number;
  keys: { key: string; weight: number }[];
  accounts: { permission: { actor: string; permission: string }; weight: number }[];
  waits: { wait_sec: number; weight: number }[];
};
type PermissionJson = { perm_name: string; parent: string; required_auth: AuthorityJson };

/** One decoded action of a received transaction: authorization as `actor@permission`, data as the contract's ABI reads it. */
export type VertAction = { account: string; name: string; authorization: string[]; data: unknown };

/** Every transaction posted to send_transaction/push_transaction, applied or refused, as the node read it. */
export type VertReceivedTransaction = {
  path: string;
  id: string;
  /** Keys recovered from the signatures over chain id + transaction digest. */
  signedBy: string[];
  actions: VertAction[];
  accepted: boolean;
  /** The block it went into, when accepted. */
  blockNum?: number;
  /** The chain exception's name, when refused. */
  error?: string;
};

export type VertNode = {
  url: string;
  chainId: string;
  /** The emulator: its accounts, tables and clock. */
  bc: Blockchain;
  received: VertReceivedTransaction[];
  requests: { path: string; body: unknown }[];
  /**
   * An account whose permissions are each satisfied by one key: `active` (owner takes the same key
   * unless given), and any other named permission as a child of active (the issuer's `attest`).
   */
  createAccount(name: string, keys: { active: KeyLike; owner?: KeyLike } & Record<string, KeyLike>): Account;
  /** eosio::linkauth: `permission` of `account` becomes the minimum for `code`::`action` (every action of code when omitted). */
  linkAuth(account: string, permission: string, code: string, action?: string): void;
  /**
   * Deploys the committed attestation contract on `account` (default "attestation"), names the
   * issuer with setissuer, and links the issuer's permission to the six writing actions.
   */
  deployAttestation(opts: { issuer: string; permission: string; account?: string }): Promise<Account>;
  /** Moves the emulator's clock (and the head block, two blocks a second). */
  advance(seconds: number): void;
  /** The emulator's clock, whole seconds since the epoch. */
  nowSec(): number;
  close(): Promise<void>;
};

/** nodeos' error envelope: HTTP 500 with the chain exception's code, name and what, and the detail message. */
class ChainException extends Error {
  constructor(
    readonly code: number,
    readonly chainName: string,
    readonly what: string,
    detail: string,
    readonly status = 500,
  ) {
    super(detail);
  }
  answer(): FakeAnswer {
    const message = this.status === 400 ? "Invalid Request" : this.status === 404 ? "Not Found" : "Internal Service Error";
    return {
      status: this.status,
      json: {
        code: this.status,
        message,
        error: {
          code: this.code,
          name: this.chainName,
          what: this.what,
          details: [{ message: this.message, file: "vert-node.ts", line_number: 1, method: "vert" }],
        },
      },
    };
  }
}

const authJson = (actor: string, permission: string) => JSON.stringify({ actor, permission });
const unsatisfied = (actor: string, permission: string, keys: string[]) =>
  new ChainException(
    3090003,
    "unsatisfied_authorization",
    "Provided keys, permissions, and delays do not satisfy declared authorizations",
    `transaction declares authority '${authJson(actor, permission)}', but does not have signatures for it under a provided delay of 0 ms, ` +
      `provided permissions [], provided keys ${JSON.stringify(keys)}, and a delay max limit of 3888000000 ms`,
  );
const txException = (code: number, name: string, what: string, detail: string) => new ChainException(code, name, what, detail);
const tableQuery = (detail: string) =>
  new ChainException(3060003, "contract_table_query_exception", "Contract Table Query Exception", detail);

/** What VeRT throws, as nodeos would answer it. */
function fromVert(err: unknown): ChainException {
  const message = err instanceof Error ? err.message : String(err);
  const assertion = /^(?:eosio_assert_message: )?eosio_assert(?:_message)?: ([\s\S]*)$/.exec(message);
  const code = /^(?:eosio_assert_message: )?eosio_assert_code: (\d+)$/.exec(message);
  const auth = /^missing required authority ([a-z1-5.]+)(?:@([a-z1-5.]+))?$/.exec(message);
  if (code)
    return new ChainException(
      3050004,
      "eosio_assert_code_exception",
      "eosio_assert_code assertion failure",
      `assertion failure with error code: ${code[1]}`,
    );
  if (assertion)
    return new ChainException(
      3050003,
      "eosio_assert_message_exception",
      "eosio_assert_message assertion failure",
      `assertion failure with message: ${assertion[1]}`,
    );
  if (auth)
    return new ChainException(
      3090004,
      "missing_auth_exception",
      "Missing required authority",
      `missing authority of ${auth[1]}${auth[2] ? `/${auth[2]}` : ""}`,
    );
  if (err instanceof WebAssembly.RuntimeError)
    return new ChainException(3070002, "wasm_execution_error", "Runtime Error Processing WASM", message);
  return txException(3040000, "transaction_exception", "Transaction exception", message);
}

// VeRT runs on its own copy of @greymass/eosio (the package @wharfkit/antelope was renamed from):
// a transaction handed to it is decoded with that copy's classes, as its own .send() builds them.
type GreymassCore = { Serializer: { decode(args: { data: Uint8Array; type: unknown }): unknown }; Transaction: unknown };
const vertRequire = createRequire(createRequire(import.meta.url).resolve("@proton/vert"));
const greymass = vertRequire("@greymass/eosio") as GreymassCore;

const nodeTime = (ms: number) => new Date(ms).toISOString().slice(0, -1);
// Leap prints K1 keys in the legacy form, as the fake node does.
const printKey = (k: string) => (PublicKey.from(k).type === "K1" ? PublicKey.from(k).toLegacyString() : PublicKey.from(k).toString());
const keyString = (k: KeyLike) => PublicKey.from(k).toString();
const plain = <T>(value: unknown): T => JSON.parse(JSON.stringify(value)) as T;

const Hex = z.string().regex(/^([0-9a-fA-F]{2})*$/, "must be hex");
const SendBody = z
  .object({
    signatures: z.array(z.string()),
    compression: z.union([z.literal(0), z.literal(1), z.literal("none"), z.literal("zlib")]).default(0),
    packed_context_free_data: Hex.default(""),
    packed_trx: Hex,
  })
  .strict();
const TableKey = z.union([z.string(), z.number().int().nonnegative()]);
const TableRowsBody = z
  .object({
    code: z.string(),
    scope: z.string(),
    table: z.string(),
    json: z.boolean().default(false),
    lower_bound: TableKey.optional(),
    upper_bound: TableKey.optional(),
    limit: z.number().int().positive().default(10),
    index_position: z.union([z.literal(""), z.literal("primary"), z.literal("1"), z.literal(1)]).optional(),
    key_type: z.string().optional(),
    encode_type: z.string().optional(),
    reverse: z.literal(false).optional(),
    show_payer: z.boolean().optional(),
  })
  .strict();
const AccountBody = z.object({ account_name: z.string() }).strict();
const EmptyBody = z.union([z.null(), z.object({}).strict()]);

/** nodeos reads a primary-key bound as a number when it is one, else as a name. */
function keyOf(bound: string | number, what: string): bigint {
  if (typeof bound === "number") return BigInt(bound);
  const s = bound.trim();
  if (/^\d+$/.test(s)) return BigInt(s);
  try {
    return BigInt(Name.from(s).value.toString());
  } catch {
    throw tableQuery(`Invalid ${what}: ${s}`);
  }
}

/** A nodeos chain API over a fresh VeRT chain whose clock reads `at`, on a loopback port. */
export async function startVertNode(opts: { at?: string; chainId?: string } = {}): Promise<VertNode> {
  const chainId = opts.chainId ?? DEFAULT_CHAIN_ID;
  const bc = chainAt(opts.at ?? "2026-03-01T00:00:00Z");
  const received: VertReceivedTransaction[] = [];
  const requests: { path: string; body: unknown }[] = [];
  /** actor:code:action (action "" for every action of code) → the minimum permission. */
  const links = new Map<string, string>();
  /** Applied transaction ids and their expiration (seconds): a second copy is a duplicate until then. */
  const seen = new Map<string, number>();
  const abis = new Map<string, { sequence: number; abi: ABI }>();
  let head = 70_000; // past 2^16, so ref_block_num wraps as on a real chain
  const lib = () => head - 3;
  const nowSec = () => Math.floor(bc.timestamp.toMilliseconds() / 1000);
  const blockId = (n: number) => {
    const id = crypto.createHash("sha256").update(`${chainId}:${n}`).digest();
    id.writeUInt32BE(n, 0);
    return id;
  };

  // One request at a time: VeRT's applyTransaction awaits between resetting its VMs and applying.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(fn: () => T | Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };

  function permissionOf(actor: string, permission: string): PermissionJson | undefined {
    const account = bc.accounts[actor];
    return account?.permissions.map((p) => plain<PermissionJson>(p)).find((p) => p.perm_name === permission);
  }

  /** Weights of the recovered keys and delegated permissions against the permission's threshold; marks the keys it used. */
  function satisfied(actor: string, permission: string, keys: Set<string>, used: Set<string>, depth = 0): boolean {
    const perm = permissionOf(actor, permission);
    if (!perm || depth >= MAX_AUTHORITY_DEPTH) return false;
    const auth = perm.required_auth;
    let weight = 0;
    const mine: string[] = [];
    for (const k of auth.keys) {
      const key = keyString(k.key);
      if (keys.has(key)) {
        weight += k.weight;
        mine.push(key);
      }
    }
    const delegated = new Set<string>();
    for (const a of auth.accounts) {
      if (a.permission.permission === "eosio.code") continue; // inline actions only
      if (satisfied(a.permission.actor, a.permission.permission, keys, delegated, depth + 1)) weight += a.weight;
    }
    if (weight < auth.threshold) return false;
    for (const k of [...mine, ...delegated]) used.add(k);
    return true;
  }

  /** The permission's ancestors, itself first (owner last). */
  function lineage(actor: string, permission: string): string[] {
    const out: string[] = [];
    for (let p = permissionOf(actor, permission); p && out.length < 16; p = p.parent ? permissionOf(actor, p.parent) : undefined)
      out.push(p.perm_name);
    return out;
  }

  /** eosio's rule: the declared permission must be the linked minimum for the action, or one of its ancestors. */
  function checkLinked(actor: string, permission: string, code: string, action: string) {
    const minimum = links.get(`${actor}:${code}:${action}`) ?? links.get(`${actor}:${code}:`) ?? "active";
    if (lineage(actor, minimum).includes(permission)) return;
    throw new ChainException(
      3090005,
      "irrelevant_auth_exception",
      "Irrelevant authority included",
      `action declares irrelevant authority '${authJson(actor, permission)}'; minimum authority is ${authJson(actor, minimum)}`,
    );
  }

  function abiOf(account: Account): ABI {
    const name = account.name.toString();
    const cached = abis.get(name);
    if (cached && cached.sequence === account.codeSequence) return cached.abi;
    const abi = ABI.from(plain<ABI.Def>(account.abi));
    abis.set(name, { sequence: account.codeSequence, abi });
    return abi;
  }

  function checkHeader(tx: Transaction, id: string) {
    const now = nowSec();
    const expiration = Number(tx.expiration.value);
    if (expiration <= now)
      throw txException(
        3040005,
        "expired_tx_exception",
        "Expired Transaction",
        `expired transaction ${id}, expiration ${tx.expiration}, block time ${nodeTime(now * 1000)}`,
      );
    if (expiration > now + MAX_TRX_LIFETIME_SEC)
      throw txException(
        3040006,
        "tx_exp_too_far_exception",
        "Transaction Expiration Too Far",
        `Transaction expiration is too far in the future relative to the reference time of ${nodeTime(now * 1000)}, expiration ${tx.expiration} and max_trx_lifetime 3600s`,
      );
    const refNum = Number(tx.ref_block_num);
    const blockNum = head - ((head - refNum) & 0xffff);
    if (blockNum < 1 || blockId(blockNum).readUInt32LE(8) !== Number(tx.ref_block_prefix))
      throw txException(
        3040007,
        "invalid_ref_block_exception",
        "Invalid Reference Block",
        "Transaction's reference block did not match. Is this transaction from a different fork?",
      );
    for (const [known, until] of seen) if (until < now) seen.delete(known);
    if (seen.has(id)) throw txException(3040008, "tx_duplicate", "Duplicate transaction", `duplicate transaction ${id}`);
    if (tx.context_free_actions.length > 0 || tx.transaction_extensions.length > 0 || Number(tx.delay_sec) > 0)
      throw txException(
        3040000,
        "transaction_exception",
        "Transaction exception",
        "context-free actions, transaction extensions and delays are not supported by the vert node",
      );
    if (tx.actions.length === 0)
      throw txException(3040002, "tx_no_action", "Transaction has no actions", "A transaction must have at least one action");
    if (!tx.actions.some((a) => a.authorization.length > 0))
      throw txException(3040003, "tx_no_auths", "Transaction has no authorizations", "transaction must have at least one authorization");
  }

  async function pushTransaction(path: string, raw: unknown) {
    const body = parseBody(SendBody, raw);
    let tx: Transaction;
    let packed: PackedTransaction;
    try {
      packed = PackedTransaction.from({
        signatures: body.signatures,
        compression: body.compression === "zlib" || body.compression === 1 ? 1 : 0,
        packed_context_free_data: body.packed_context_free_data,
        packed_trx: body.packed_trx,
      });
      tx = packed.getTransaction();
    } catch {
      throw new ChainException(3015014, "pack_exception", "Pack data exception", "Unable to unpack the transaction");
    }
    const bytes = Serializer.encode({ object: tx }).array;
    if (Number(packed.compression) === 0 && Buffer.compare(Buffer.from(bytes), Buffer.from(packed.packed_trx.array)) !== 0)
      throw new ChainException(3015014, "pack_exception", "Pack data exception", "packed_trx has bytes after the transaction");
    const id = tx.id.hexString;
    const record: VertReceivedTransaction = { path, id, signedBy: [], actions: [], accepted: false };
    received.push(record);
    try {
      const digest = tx.signingDigest(chainId);
      for (const s of body.signatures) {
        try {
          record.signedBy.push(Signature.from(s).recoverDigest(digest).toString());
        } catch {
          throw new ChainException(3010008, "signature_type_exception", "Invalid signature", `Unable to recover a key from signature ${s}`);
        }
      }
      if (new Set(record.signedBy).size < record.signedBy.length)
        throw new ChainException(
          3090001,
          "tx_duplicate_sig",
          "Duplicate signature included",
          "transaction includes more than one signature of a key",
        );
      checkHeader(tx, id);
      for (const act of tx.actions) {
        const code = String(act.account);
        const name = String(act.name);
        const contract = bc.accounts[code];
        if (!contract?.isContract)
          throw new ChainException(3050000, "action_validate_exception", "Action validate exception", `no contract on account ${code}`);
        const abi = abiOf(contract);
        if (!abi.actions.some((a) => String(a.name) === name))
          throw new ChainException(
            3050000,
            "action_validate_exception",
            "Action validate exception",
            `${code} has no action ${name} in its ABI`,
          );
        let data: unknown;
        try {
          const decoded = act.decodeData(abi);
          if (!Serializer.encode({ object: decoded, type: name, abi }).equals(act.data)) throw new Error("trailing bytes");
          data = Serializer.objectify(decoded);
        } catch {
          throw new ChainException(
            3050002,
            "invalid_action_args_exception",
            "Invalid Action Arguments",
            `action data of ${code}::${name} does not read as the contract's ABI ${name}`,
          );
        }
        record.actions.push({ account: code, name, authorization: act.authorization.map((l) => `${l.actor}@${l.permission}`), data });
      }
      const keys = new Set(record.signedBy);
      const used = new Set<string>();
      for (const act of tx.actions) {
        for (const level of act.authorization) {
          const actor = String(level.actor);
          const permission = String(level.permission);
          checkLinked(actor, permission, String(act.account), String(act.name));
          if (!satisfied(actor, permission, keys, used)) throw unsatisfied(actor, permission, record.signedBy);
        }
      }
      const irrelevant = record.signedBy.filter((k) => !used.has(k));
      if (irrelevant.length > 0)
        throw new ChainException(
          3090002,
          "tx_irrelevant_sig",
          "Irrelevant signature included",
          `transaction bears irrelevant signatures from these keys: ${JSON.stringify(irrelevant)}`,
        );
      // All actions in one go: VeRT reverts its tables when any of them fails.
      try {
        await bc.applyTransaction(greymass.Serializer.decode({ data: bytes, type: greymass.Transaction }) as never);
      } catch (err) {
        throw fromVert(err);
      }
    } catch (err) {
      record.error = err instanceof ChainException ? err.chainName : "exception";
      throw err;
    }
    record.accepted = true;
    seen.set(id, Number(tx.expiration.value));
    head += 1;
    record.blockNum = head;
    return {
      transaction_id: id,
      processed: {
        id,
        block_num: head,
        block_time: nodeTime(bc.timestamp.toMilliseconds()),
        producer_block_id: null,
        receipt: { status: "executed", cpu_usage_us: 100, net_usage_words: Math.ceil(bytes.length / 8) + 12 },
        elapsed: 100,
        net_usage: (Math.ceil(bytes.length / 8) + 12) * 8,
        scheduled: false,
        // VeRT keeps one console for the whole transaction: it goes with the first action.
        action_traces: record.actions.map((a, i) => ({
          action_ordinal: i + 1,
          creator_action_ordinal: 0,
          receiver: a.account,
          act: {
            account: a.account,
            name: a.name,
            authorization: a.authorization.map((l) => ({ actor: l.split("@")[0], permission: l.split("@")[1] })),
            data: a.data,
            hex_data: tx.actions[i]!.data.hexString,
          },
          console: i === 0 ? bc.console : "",
          block_num: head,
          trx_id: id,
          except: null,
          error_code: null,
        })),
        account_ram_delta: null,
        except: null,
        error_code: null,
      },
    };
  }

  function tableRows(raw: unknown) {
    const p = parseBody(TableRowsBody, raw);
    const contract = bc.accounts[p.code];
    if (!contract?.abi) throw tableQuery(`No ABI found for ${p.code}`);
    if (!contract.abi.tables.some((t) => String(t.name) === p.table)) throw tableQuery(`Table ${p.table} is not specified in the ABI`);
    const scope = keyOf(p.scope, "scope");
    const tab = bc.store.findTable(nameToBigInt(p.code), scope, nameToBigInt(p.table));
    if (!tab) return { rows: [], more: false, next_key: "" };
    const view = contract.tables[p.table]!(scope);
    const upper = p.upper_bound === undefined || p.upper_bound === "" ? null : keyOf(p.upper_bound, "upper_bound");
    const lower = p.lower_bound === undefined || p.lower_bound === "" ? 0n : keyOf(p.lower_bound, "lower_bound");
    const rows: unknown[] = [];
    // nodeos' upper bound is inclusive for get_table_rows.
    const within = (key: bigint) => upper === null || key <= upper;
    let kv = tab.lowerbound(lower);
    while (kv && within(kv.primaryKey) && rows.length < p.limit) {
      const data = p.json ? view.getTableRow(kv.primaryKey) : Buffer.from(kv.value).toString("hex");
      rows.push(p.show_payer ? { data, payer: Name.from(UInt64.from(kv.payer.toString())).toString() } : data);
      kv = tab.next(kv.primaryKey);
    }
    const more = !!kv && within(kv.primaryKey);
    return { rows, more, next_key: more && kv ? kv.primaryKey.toString() : "" };
  }

  function accountAnswer(raw: unknown) {
    const { account_name: name } = parseBody(AccountBody, raw);
    const account = bc.accounts[name];
    if (!account)
      throw new ChainException(
        3060002,
        "account_query_exception",
        "Account Query Exception",
        `unknown key (eosio::chain::name): (0 ${name})`,
      );
    const permissions = account.permissions.map((p) => plain<PermissionJson>(p));
    const linked = [...links].filter(([k]) => k.startsWith(`${name}:`));
    return {
      account_name: name,
      head_block_num: head,
      head_block_time: nodeTime(bc.timestamp.toMilliseconds()),
      privileged: false,
      last_code_update: "1970-01-01T00:00:00.000",
      created: nodeTime(account.creationTime.toMilliseconds()),
      ram_quota: -1,
      net_weight: -1,
      cpu_weight: -1,
      permissions: permissions.map((p) => ({
        perm_name: p.perm_name,
        parent: p.parent,
        required_auth: { ...p.required_auth, keys: p.required_auth.keys.map((k) => ({ key: printKey(k.key), weight: k.weight })) },
        linked_actions: linked
          .filter(([, perm]) => perm === p.perm_name)
          .map(([k]) => {
            const [, code, action] = k.split(":");
            return action ? { account: code, action } : { account: code };
          }),
      })),
    };
  }

  function info() {
    return {
      server_version: "vert",
      chain_id: chainId,
      head_block_num: head,
      last_irreversible_block_num: lib(),
      last_irreversible_block_id: blockId(lib()).toString("hex"),
      head_block_id: blockId(head).toString("hex"),
      head_block_time: nodeTime(bc.timestamp.toMilliseconds()),
      head_block_producer: "eosio",
      server_version_string: "vert-node",
    };
  }

  async function answer(path: string, body: unknown): Promise<FakeAnswer> {
    try {
      switch (path) {
        case "/v1/chain/get_info":
          parseBody(EmptyBody, body);
          return { status: 200, json: info() };
        case "/v1/chain/get_account":
          return { status: 200, json: accountAnswer(body) };
        case "/v1/chain/get_table_rows":
          return { status: 200, json: tableRows(body) };
        case "/v1/chain/send_transaction":
        case "/v1/chain/push_transaction":
          return { status: 202, json: await pushTransaction(path, body) };
        default:
          throw new ChainException(0, "exception", "unspecified", "Unknown Endpoint", 404);
      }
    } catch (err) {
      if (err instanceof ChainException) return err.answer();
      return fromVert(err).answer();
    }
  }

  const server = await startFakeServer((r) => {
    const path = r.path.split("?")[0]!;
    let body: unknown = null;
    if (r.raw.trim()) {
      try {
        body = JSON.parse(r.raw);
      } catch {
        requests.push({ path, body: r.raw });
        return new ChainException(4, "parse_error_exception", "Parse Error", "Unable to parse valid input from POST body", 400).answer();
      }
    }
    requests.push({ path, body });
    return serially(() => answer(path, body));
  });

  function createAccount(name: string, keys: { active: KeyLike; owner?: KeyLike } & Record<string, KeyLike>): Account {
    const { owner = keys.active, active, ...others } = keys;
    const permission = (perm_name: string, parent: string, key: KeyLike) =>
      AccountPermission.from({
        perm_name,
        parent,
        required_auth: { threshold: 1, keys: [{ key: keyString(key), weight: 1 }], accounts: [], waits: [] },
      });
    const account = bc.createAccount(name);
    account.setPermissions([
      permission("owner", "", owner),
      permission("active", "owner", active),
      ...Object.entries(others).map(([perm, key]) => permission(perm, "active", key)),
    ]);
    return account;
  }

  function linkAuth(account: string, permission: string, code: string, action = "") {
    if (!permissionOf(account, permission)) throw new Error(`${account} has no permission ${permission}`);
    links.set(`${account}:${code}:${action}`, permission);
  }

  return {
    url: server.url,
    chainId,
    bc,
    received,
    requests,
    createAccount,
    linkAuth,
    async deployAttestation({ issuer, permission, account = "attestation" }) {
      const contract = deploy(bc, account, "attestation");
      await serially(() => contract.actions.setissuer!([issuer, permission]).send(`${account}@active`));
      for (const action of ATTESTATION_WRITES) linkAuth(issuer, permission, account, action);
      return contract;
    },
    advance(seconds) {
      addSeconds(bc, seconds);
      head += Math.max(1, Math.ceil(seconds * 2));
    },
    nowSec,
    close: server.close,
  };
}

/** The body as the endpoint's schema reads it, or nodeos' 400 naming the first problem (never the value). */
function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ChainException(
    3200006,
    "invalid_http_request",
    "invalid http request",
    `Invalid parameter ${issue.path.join(".") || "(body)"}: ${issue.message}`,
    400,
  );
}
