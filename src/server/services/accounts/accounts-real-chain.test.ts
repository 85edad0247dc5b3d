import { PrivateKey } from "@wharfkit/antelope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetChainConfigCache } from "../../providers/chain";
import { uniqueName, walletKey } from "../../testing/factories";
import { type FakeChainNode, startFakeChainNode } from "../../testing/fake-chain-node";
import { client, createTestOrg, testServer } from "../../testing/harness";

// This file runs free create against the real Antelope adapter and a local chain node that
// decodes and checks every transaction it is sent.
const sponsorKey = PrivateKey.generate("K1");
let node: FakeChainNode;

beforeAll(async () => {
  node = await startFakeChainNode();
  node.addAccount("sponsor.bi", sponsorKey.toPublic().toString());
  Object.assign(process.env, {
    CHAIN_API_URL: node.url,
    CHAIN_NAME: "eos",
    CHAIN_SPONSOR_ACCOUNT: "sponsor.bi",
    CHAIN_SPONSOR_PRIVATE_KEY: sponsorKey.toString(),
    CHAIN_NET_STAKE: "0.1000 EOS",
    CHAIN_CPU_STAKE: "0.1000 EOS",
  });
  resetChainConfigCache();
});

afterAll(async () => {
  for (const k of [
    "CHAIN_API_URL",
    "CHAIN_NAME",
    "CHAIN_SPONSOR_ACCOUNT",
    "CHAIN_SPONSOR_PRIVATE_KEY",
    "CHAIN_NET_STAKE",
    "CHAIN_CPU_STAKE",
  ])
    delete process.env[k];
  resetChainConfigCache();
  await node.close();
});

async function rowsOf(db: any, orgId: string) {
  return {
    accounts: await db.account.count({ where: { orgId } }),
    events: await db.outboxEvent.count({ where: { orgId } }),
    audit: await db.auditEntry.count({ where: { orgId, action: "account.created" } }),
  };
}

describe("free create on a real chain node", () => {
  it("sends one sponsor-signed transaction and records the account", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const key = walletKey();
    const name = uniqueName();
    const res = await client(url, org.apiKey).post("/v1/accounts/free", { ownerPublicKey: key.publicKey, preferredName: name });
    expect(res.status).toBe(201);
    expect(res.body.accountDid).toBe(`did:antelope:eos:${name}`);
    const tx = node.received.at(-1)!;
    expect(tx.accepted).toBe(true);
    expect(tx.id).toBe(res.body.transactionId);
    expect(tx.actions[0]!.data.name).toBe(name);
    expect(node.accounts.has(name)).toBe(true);
    expect(await rowsOf(db, org.orgId)).toEqual({ accounts: 1, events: 1, audit: 1 });
  });

  it("leaves no account row, no event and no audit entry when the chain refuses the transaction", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    process.env.CHAIN_SPONSOR_PRIVATE_KEY = PrivateKey.generate("K1").toString();
    resetChainConfigCache();
    try {
      const res = await client(url, org.apiKey).post("/v1/accounts/free", {
        ownerPublicKey: walletKey().publicKey,
        preferredName: uniqueName(),
      });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe("PROVIDER_FAILURE");
      expect(node.received.at(-1)!.accepted).toBe(false);
      expect(await rowsOf(db, org.orgId)).toEqual({ accounts: 0, events: 0, audit: 0 });
    } finally {
      process.env.CHAIN_SPONSOR_PRIVATE_KEY = sponsorKey.toString();
      resetChainConfigCache();
    }
  });

  it("answers 503 PROVIDER_UNAVAILABLE and writes nothing when the node is down", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    node.setMode("unavailable");
    try {
      const res = await client(url, org.apiKey).post("/v1/accounts/free", {
        ownerPublicKey: walletKey().publicKey,
        preferredName: uniqueName(),
      });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("PROVIDER_UNAVAILABLE");
      expect(await rowsOf(db, org.orgId)).toEqual({ accounts: 0, events: 0, audit: 0 });
    } finally {
      node.setMode("ok");
    }
  });
});
