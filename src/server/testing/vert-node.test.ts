// The vert node itself: the nodeos answers it gives the service's chain code, and the transactions
// it refuses before the contract sees them.
import { Action, Name, PrivateKey, Serializer, Transaction } from "@wharfkit/antelope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAntelopeChain } from "../providers/chain/antelope";
import { ATTESTATION_ABI } from "../providers/chain/attestation-abi";
import { chainConfigFromEnv } from "../providers/chain/config";
import { buildTransaction, ChainInfo, signAndPack } from "../providers/chain/transaction";
import { startVertNode, type VertNode } from "./vert-node";

const attestKey = PrivateKey.generate("K1");
const activeKey = PrivateKey.generate("K1");
const ISSUER = { actor: "bindissuer", permission: "attest" };
let node: VertNode;

type NodeAnswer = { status: number; json: any };
async function call(path: string, body: unknown): Promise<NodeAnswer> {
  const res = await fetch(node.url + path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}
async function transaction(actions: { name: string; data: Record<string, unknown>; auth?: typeof ISSUER }[]): Promise<Transaction> {
  const info = ChainInfo.parse((await call("/v1/chain/get_info", {})).json);
  return Transaction.from({
    ...buildTransaction(info, []),
    actions: actions.map((a) =>
      Action.from({ account: "attestation", name: a.name, authorization: [a.auth ?? ISSUER], data: a.data }, ATTESTATION_ABI),
    ),
  });
}
const issue = (account: string, level = 1) => ({
  name: "issue",
  data: { account, org: 7, level, country_tier: 0, country: "", expires: "2027-01-01T00:00:00", person: "", status_index: 0 },
});
const rows = () => node.bc.accounts.attestation!.tables.attests!().getTableRows() as { account: string; status: number }[];
/** nodeos' error answer, reduced to what the service reads: status, code, name, first detail. */
const refusal = (a: NodeAnswer) => ({
  status: a.status,
  code: a.json.error?.code,
  name: a.json.error?.name,
  detail: a.json.error?.details?.[0]?.message,
});

beforeAll(async () => {
  node = await startVertNode({ at: "2026-03-01T00:00:00Z" });
  node.createAccount("bindissuer", { active: activeKey.toPublic(), attest: attestKey.toPublic() });
  node.bc.createAccounts("alice", "bob", "carol");
  await node.deployAttestation({ issuer: "bindissuer", permission: "attest" });
});
afterAll(() => node.close());

describe("get_info, get_account, get_table_rows", () => {
  it("answers get_info with the emulator's clock and a TaPoS reference the node accepts", async () => {
    const { status, json } = await call("/v1/chain/get_info", {});
    expect(status).toBe(200);
    expect(json).toMatchObject({ chain_id: node.chainId, head_block_time: "2026-03-01T00:00:00.000" });
    expect(json.last_irreversible_block_num).toBe(json.head_block_num - 3);
    expect(json.head_block_id.slice(0, 8)).toBe(json.head_block_num.toString(16).padStart(8, "0"));
    const tx = await transaction([issue("alice")]);
    const sent = await call("/v1/chain/send_transaction", signAndPack(tx, node.chainId, attestKey));
    expect(sent.status).toBe(202);
    expect(sent.json).toMatchObject({
      transaction_id: tx.id.hexString,
      processed: { id: tx.id.hexString, block_num: json.head_block_num + 1 },
    });
    expect(sent.json.processed.action_traces[0].act).toMatchObject({ account: "attestation", name: "issue", data: { account: "alice" } });
  });

  it("answers get_account in the shape the real chain adapter reads", async () => {
    const config = chainConfigFromEnv({
      CHAIN_API_URL: node.url,
      CHAIN_NAME: "eos",
      CHAIN_SPONSOR_ACCOUNT: "sponsor",
      CHAIN_SPONSOR_PRIVATE_KEY: PrivateKey.generate("K1").toString(),
      CHAIN_NET_STAKE: "0.1000 EOS",
      CHAIN_CPU_STAKE: "0.1000 EOS",
    });
    const account = await createAntelopeChain(config).getAccount("bindissuer");
    expect(account).toMatchObject({
      name: "bindissuer",
      ownerKeys: [activeKey.toPublic().toString()],
      activeKeys: [activeKey.toPublic().toString()],
    });
    expect(account!.permissions.attest).toEqual({
      threshold: 1,
      keys: [{ key: attestKey.toPublic().toString(), weight: 1 }],
      accounts: [],
      waits: [],
    });
    expect(await createAntelopeChain(config).getAccount("nobody")).toBeNull();
    const raw = await call("/v1/chain/get_account", { account_name: "bindissuer" });
    expect(raw.json.permissions.find((p: { perm_name: string }) => p.perm_name === "attest")).toMatchObject({
      parent: "active",
      linked_actions: ["issue", "suspend", "reinstate", "revoke", "expire", "remove"].map((action) => ({ account: "attestation", action })),
    });
  });

  it("reads table rows with inclusive bounds, a limit, more and next_key, as JSON or hex", async () => {
    await call("/v1/chain/send_transaction", signAndPack(await transaction([issue("bob"), issue("carol")]), node.chainId, attestKey));
    const query = { code: "attestation", scope: "attestation", table: "attests", json: true };
    const page = await call("/v1/chain/get_table_rows", { ...query, limit: 2 });
    expect(page.json.rows.map((r: { account: string }) => r.account)).toEqual(["alice", "bob"]);
    expect(page.json).toMatchObject({ more: true, next_key: Name.from("carol").value.toString() });
    const rest = await call("/v1/chain/get_table_rows", { ...query, lower_bound: page.json.next_key });
    expect(rest.json).toMatchObject({ rows: [{ account: "carol" }], more: false, next_key: "" });
    const one = await call("/v1/chain/get_table_rows", { ...query, lower_bound: "bob", upper_bound: "bob" });
    expect(one.json.rows.map((r: { account: string }) => r.account)).toEqual(["bob"]);
    const hex = await call("/v1/chain/get_table_rows", { ...query, json: false, limit: 1 });
    const decoded = Serializer.objectify(Serializer.decode({ data: hex.json.rows[0], type: "Attest", abi: ATTESTATION_ABI }));
    expect(decoded).toEqual(page.json.rows[0]);
    const unknown = await call("/v1/chain/get_table_rows", { ...query, table: "nosuch" });
    expect(refusal(unknown)).toMatchObject({
      status: 500,
      name: "contract_table_query_exception",
      detail: "Table nosuch is not specified in the ABI",
    });
    const empty = await call("/v1/chain/get_table_rows", { ...query, scope: "alice" });
    expect(empty.json).toEqual({ rows: [], more: false, next_key: "" });
  });

  it("answers an unknown path 404 and a body it cannot read 400, in nodeos' shape", async () => {
    expect(refusal(await call("/v1/chain/get_producers", {}))).toEqual({
      status: 404,
      code: 0,
      name: "exception",
      detail: "Unknown Endpoint",
    });
    expect(refusal(await call("/v1/chain/get_info", "{not json"))).toMatchObject({ status: 400, name: "parse_error_exception" });
    expect(refusal(await call("/v1/chain/get_account", { account: "alice" }))).toMatchObject({ status: 400, name: "invalid_http_request" });
    expect(refusal(await call("/v1/chain/send_transaction", { packed_trx: "zz", signatures: [] }))).toMatchObject({
      status: 400,
      name: "invalid_http_request",
    });
  });
});

describe("send_transaction refuses", () => {
  it("an expired transaction, by the emulator's clock", async () => {
    const tx = await transaction([{ name: "suspend", data: { account: "alice", reason_code: 0 } }]);
    node.advance(60);
    const answer = await call("/v1/chain/send_transaction", signAndPack(tx, node.chainId, attestKey));
    expect(refusal(answer)).toMatchObject({ status: 500, code: 3040005, name: "expired_tx_exception" });
    expect(answer.json.error.details[0].message).toBe(
      `expired transaction ${tx.id.hexString}, expiration ${tx.expiration}, block time ${new Date(node.nowSec() * 1000).toISOString().slice(0, -1)}`,
    );
    expect(rows().find((r) => r.account === "alice")).toMatchObject({ status: 0 });
  });

  it("an unsigned transaction, a signature for another chain, a key not on the permission, and an extra signature", async () => {
    const tx = await transaction([{ name: "suspend", data: { account: "alice", reason_code: 0 } }]);
    const declared = `transaction declares authority '{"actor":"bindissuer","permission":"attest"}', but does not have signatures for it`;
    const unsigned = await call("/v1/chain/send_transaction", { ...signAndPack(tx, node.chainId, attestKey), signatures: [] });
    expect(unsigned.status).toBe(500);
    expect(unsigned.json).toMatchObject({
      code: 500,
      message: "Internal Service Error",
      error: {
        code: 3090003,
        name: "unsatisfied_authorization",
        what: "Provided keys, permissions, and delays do not satisfy declared authorizations",
      },
    });
    expect(unsigned.json.error.details[0].message).toBe(
      `${declared} under a provided delay of 0 ms, provided permissions [], provided keys [], and a delay max limit of 3888000000 ms`,
    );
    const otherChain = await call("/v1/chain/send_transaction", signAndPack(tx, "0".repeat(64), attestKey));
    expect(refusal(otherChain)).toMatchObject({ code: 3090003, detail: expect.stringContaining(declared) });
    const otherKey = await call("/v1/chain/send_transaction", signAndPack(tx, node.chainId, activeKey));
    expect(refusal(otherKey).detail).toContain(`provided keys ["${activeKey.toPublic().toString()}"]`);
    const both = signAndPack(tx, node.chainId, attestKey);
    both.signatures.push(activeKey.signDigest(tx.signingDigest(node.chainId)).toString());
    expect(refusal(await call("/v1/chain/send_transaction", both))).toMatchObject({
      code: 3090002,
      name: "tx_irrelevant_sig",
      detail: `transaction bears irrelevant signatures from these keys: ["${activeKey.toPublic().toString()}"]`,
    });
    expect(node.received.slice(-4).map((r) => r.error)).toEqual([
      "unsatisfied_authorization",
      "unsatisfied_authorization",
      "unsatisfied_authorization",
      "tx_irrelevant_sig",
    ]);
    expect(rows().find((r) => r.account === "alice")).toMatchObject({ status: 0 });
  });

  it("a permission not linked to the action, and the same transaction twice", async () => {
    const unlinked = await transaction([{ name: "require", data: { account: "alice", min_level: 1 } }]);
    expect(refusal(await call("/v1/chain/send_transaction", signAndPack(unlinked, node.chainId, attestKey)))).toMatchObject({
      code: 3090005,
      name: "irrelevant_auth_exception",
      detail: `action declares irrelevant authority '{"actor":"bindissuer","permission":"attest"}'; minimum authority is {"actor":"bindissuer","permission":"active"}`,
    });
    const tx = await transaction([{ name: "suspend", data: { account: "alice", reason_code: 0 } }]);
    expect((await call("/v1/chain/send_transaction", signAndPack(tx, node.chainId, attestKey))).status).toBe(202);
    expect(refusal(await call("/v1/chain/push_transaction", signAndPack(tx, node.chainId, attestKey)))).toMatchObject({
      code: 3040008,
      name: "tx_duplicate",
    });
    expect(rows().find((r) => r.account === "alice")).toMatchObject({ status: 1 });
  });

  it("all actions of a transaction or none: a later action's assertion undoes the earlier ones", async () => {
    const tx = await transaction([{ name: "remove", data: { account: "bob" } }, issue("carol", 0)]);
    const answer = await call("/v1/chain/send_transaction", signAndPack(tx, node.chainId, attestKey));
    expect(refusal(answer)).toEqual({
      status: 500,
      code: 3050003,
      name: "eosio_assert_message_exception",
      detail: "assertion failure with message: level must be 1 or more",
    });
    expect(rows().map((r) => r.account)).toEqual(["alice", "bob", "carol"]);
  });

  it("action data that does not read as the contract's ABI", async () => {
    const tx = await transaction([{ name: "remove", data: { account: "bob" } }]);
    const garbled = Transaction.from({
      ...tx,
      actions: [{ ...tx.actions[0]!, data: `${tx.actions[0]!.data.hexString}00` }],
    });
    expect(refusal(await call("/v1/chain/send_transaction", signAndPack(garbled, node.chainId, attestKey)))).toMatchObject({
      code: 3050002,
      name: "invalid_action_args_exception",
    });
    expect(rows().map((r) => r.account)).toContain("bob");
  });
});
