import { PrivateKey } from "@wharfkit/antelope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetChainConfigCache } from "../../providers/chain";
import { fromIp, growthCheckout, trustLoopbackProxy } from "../../testing/billing";
import { type FakeChainNode, type FakeTransferInput, startFakeChainNode } from "../../testing/fake-chain-node";
import { client, createTestOrg, testServer } from "../../testing/harness";

// Chain confirm against the real Antelope adapter and a local node: finality is the node's last
// irreversible block, and only the configured token contract's transfers count.
trustLoopbackProxy();
const CHAIN_VARS = { CHAIN_NAME: "eos", CHAIN_SPONSOR_ACCOUNT: "sponsor.bi", CHAIN_NET_STAKE: "0.1000 EOS", CHAIN_CPU_STAKE: "0.1000 EOS" };
let node: FakeChainNode;

beforeAll(async () => {
  node = await startFakeChainNode();
  const sponsorKey = PrivateKey.generate("K1");
  node.addAccount("sponsor.bi", sponsorKey.toPublic().toString());
  Object.assign(process.env, CHAIN_VARS, { CHAIN_API_URL: node.url, CHAIN_SPONSOR_PRIVATE_KEY: sponsorKey.toString() });
  resetChainConfigCache();
});

afterAll(async () => {
  for (const k of [...Object.keys(CHAIN_VARS), "CHAIN_API_URL", "CHAIN_SPONSOR_PRIVATE_KEY"]) delete process.env[k];
  resetChainConfigCache();
  await node.close();
});

describe("chain confirm on a real chain node", () => {
  it("answers 425 until the block is irreversible, then provisions once", async () => {
    const { url } = await testServer();
    const co = await growthCheckout(url);
    const transfer: FakeTransferInput = {
      from: "payer.bi",
      to: co.chainPayment.treasury,
      quantity: co.chainPayment.amount,
      memo: co.chainPayment.memo,
      irreversible: false,
    };
    const txId = node.addTransfer(transfer);
    const body = { sessionId: co.sessionId, transactionId: txId, account: "payer.bi", emailProofToken: co.emailProofToken };
    const early = await fromIp(url).post("/v1/billing/chain/confirm", body);
    expect(early.status, early.text).toBe(425);
    expect(early.headers.get("retry-after")).toBe("3");
    expect(node.requests.some((r) => r.path === "/v1/history/get_transaction")).toBe(true);

    transfer.irreversible = true;
    const ok = await fromIp(url).post("/v1/billing/chain/confirm", body);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.apiKey).toMatch(/^bi_test_/);
    expect((await fromIp(url).post("/v1/billing/chain/confirm", body)).status).toBe(409);
  });

  it("ignores a look-alike token from another contract", async () => {
    const { url } = await testServer();
    const co = await growthCheckout(url);
    const txId = node.addTransfer({
      from: "payer.bi",
      to: co.chainPayment.treasury,
      quantity: co.chainPayment.amount,
      memo: co.chainPayment.memo,
      irreversible: true,
      contract: "fake.token",
    });
    const res = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: co.sessionId, transactionId: txId });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "PAYMENT_NOT_VERIFIED", details: { reason: "transfer_not_found" } });
  });

  it("has no simulated transfers to make: the sandbox helper is 404", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).post("/v1/sandbox/chain/transfer", {
      from: "payer.bi",
      to: "treasury.bi",
      quantity: "1.0000 EOS",
      memo: "x",
    });
    expect(res.status).toBe(404);
  });
});
