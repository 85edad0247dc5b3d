import http from "node:http";
import type { AddressInfo } from "node:net";
import { PrivateKey } from "@wharfkit/antelope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAppError } from "../../errors";
import { type FakeChainNode, startFakeChainNode } from "../../testing/fake-chain-node";
import { createAntelopeChain } from "./antelope";
import { type ChainConfig, chainConfigFromEnv } from "./config";
import { generateAccountName } from "./keys";

const sponsorKey = PrivateKey.generate("K1");
const cosignerKey = PrivateKey.generate("K1");
let node: FakeChainNode;
let config: ChainConfig;

const envFor = (url: string, extra: Record<string, string> = {}) => ({
  CHAIN_API_URL: url,
  CHAIN_NAME: "eos",
  CHAIN_SPONSOR_ACCOUNT: "sponsor.bi",
  CHAIN_SPONSOR_PRIVATE_KEY: sponsorKey.toString(),
  CHAIN_FAUCET_COSIGNER: "faucet.bi@cosign",
  CHAIN_FAUCET_COSIGNER_PRIVATE_KEY: cosignerKey.toWif(),
  CHAIN_NET_STAKE: "0.1000 EOS",
  CHAIN_CPU_STAKE: "0.2000 EOS",
  ...extra,
});
const caught = async (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );

beforeAll(async () => {
  node = await startFakeChainNode();
  node.addAccount("sponsor.bi", sponsorKey.toPublic().toString());
  const faucet = node.addAccount("faucet.bi", PrivateKey.generate("K1").toPublic().toString());
  faucet.permissions.set("cosign", {
    parent: "active",
    auth: { threshold: 1, keys: [{ key: cosignerKey.toPublic().toString(), weight: 1 }], accounts: [], waits: [] },
  });
  config = chainConfigFromEnv(envFor(node.url));
});
afterAll(() => node.close());

describe("real chain adapter against the fake node", () => {
  it("reads get_info", async () => {
    const info = await createAntelopeChain(config).getInfo();
    expect(info.chainId).toBe(node.chainId);
    expect(info.headBlockNum).toBeGreaterThan(65_536);
  });

  it("creates an account in one sponsor-signed newaccount + buyrambytes + delegatebw transaction", async () => {
    const chain = createAntelopeChain(config);
    const owner = PrivateKey.generate("K1").toPublic();
    const active = PrivateKey.generate("R1").toPublic();
    const name = generateAccountName();
    const before = node.received.length;

    const { transactionId } = await chain.createAccount({ name, ownerKey: owner.toLegacyString(), activeKey: active.toString() });

    expect(node.received.length).toBe(before + 1);
    const tx = node.received.at(-1)!;
    expect(tx).toMatchObject({ path: "/v1/chain/send_transaction", accepted: true, id: transactionId });
    expect(tx.signedBy).toEqual([sponsorKey.toPublic().toString()]);
    expect(tx.actions.map((a) => `${a.account}::${a.name}`)).toEqual(["eosio::newaccount", "eosio::buyrambytes", "eosio::delegatebw"]);
    for (const a of tx.actions) expect(a.authorization).toEqual(["sponsor.bi@active"]);
    expect(tx.actions[0]!.data).toEqual({
      creator: "sponsor.bi",
      name,
      owner: {
        threshold: 1,
        keys: [{ key: owner.toString(), weight: 1 }],
        accounts: [{ permission: { actor: "faucet.bi", permission: "cosign" }, weight: 1 }],
        waits: [],
      },
      active: { threshold: 1, keys: [{ key: active.toString(), weight: 1 }], accounts: [], waits: [] },
    });
    expect(tx.actions[1]!.data).toEqual({ payer: "sponsor.bi", receiver: name, bytes: 4096 });
    expect(tx.actions[2]!.data).toEqual({
      from: "sponsor.bi",
      receiver: name,
      stake_net_quantity: "0.1000 EOS",
      stake_cpu_quantity: "0.2000 EOS",
      transfer: false,
    });
    const onChain = node.accounts.get(name)!;
    expect(onChain.ramBytes).toBe(4096);
    expect([onChain.netStake, onChain.cpuStake]).toEqual(["0.1000 EOS", "0.2000 EOS"]);

    const state = await chain.getAccount(name);
    expect(state).toMatchObject({
      name,
      ownerKeys: [owner.toString()],
      activeKeys: [active.toString()],
      ownerCosigner: "faucet.bi@cosign",
    });
    expect(state?.createdAt).toMatch(/Z$/);
    expect(await chain.getAccount(generateAccountName())).toBeNull();

    const again = await caught(chain.createAccount({ name, ownerKey: owner.toString(), activeKey: owner.toString() }));
    expect(isAppError(again) && again.code).toBe("CONFLICT");
    expect(isAppError(again) && again.details).toEqual({ reason: "name_taken" });
    expect(node.received.at(-1)).toMatchObject({ accepted: false, error: "account_name_exists_exception" });
  });

  it("unlocks with an updateauth on owner signed by the faucet cosigner, leaving only the user's key", async () => {
    const chain = createAntelopeChain(config);
    const owner = PrivateKey.generate("K1").toPublic().toString();
    const name = generateAccountName();
    await chain.createAccount({ name, ownerKey: owner, activeKey: owner });

    const { transactionId } = await chain.removeCosigner(name);

    const tx = node.received.at(-1)!;
    expect(tx).toMatchObject({ accepted: true, id: transactionId });
    expect(tx.signedBy).toEqual([cosignerKey.toPublic().toString()]);
    expect(tx.actions).toEqual([
      {
        account: "eosio",
        name: "updateauth",
        authorization: [`${name}@owner`],
        data: {
          account: name,
          permission: "owner",
          parent: "",
          auth: { threshold: 1, keys: [{ key: owner, weight: 1 }], accounts: [], waits: [] },
        },
      },
    ]);
    expect(await chain.getAccount(name)).toMatchObject({ ownerKeys: [owner], ownerCosigner: null });

    const count = node.received.length;
    expect(await chain.removeCosigner(name)).toEqual({ transactionId: "" });
    expect(node.received.length).toBe(count);
  });

  it("unlocks a user's own multisig owner as they left it (threshold, weights, other delegations), less the faucet only", async () => {
    const chain = createAntelopeChain(config);
    const [a, b, c] = ["K1", "R1", "K1"]
      .map((t) =>
        PrivateKey.generate(t as "K1" | "R1")
          .toPublic()
          .toString(),
      )
      .sort();
    const name = generateAccountName();
    const owner = {
      threshold: 2,
      keys: [a!, b!, c!].map((key) => ({ key, weight: 1 })),
      accounts: [
        { permission: { actor: "faucet.bi", permission: "cosign" }, weight: 2 },
        { permission: { actor: "sponsor.bi", permission: "active" }, weight: 1 },
      ],
      waits: [],
    };
    node.addAccount(name, owner, a!);
    await chain.removeCosigner(name);
    const tx = node.received.at(-1)!;
    expect(tx.accepted).toBe(true);
    expect(tx.actions[0]!.data.auth).toEqual({ ...owner, accounts: [owner.accounts[1]] });
    expect((await chain.getAccount(name))?.permissions.owner).toEqual({ ...owner, accounts: [owner.accounts[1]] });
  });

  it("refuses to unlock an owner that nothing but the faucet could satisfy", async () => {
    const chain = createAntelopeChain(config);
    const name = generateAccountName();
    const key = PrivateKey.generate("K1").toPublic().toString();
    node.addAccount(
      name,
      {
        threshold: 2,
        keys: [{ key, weight: 1 }],
        accounts: [{ permission: { actor: "faucet.bi", permission: "cosign" }, weight: 1 }],
        waits: [],
      },
      key,
    );
    const count = node.received.length;
    const err = await caught(chain.removeCosigner(name));
    expect(isAppError(err) && err.details).toEqual({ reason: "no_owner_key" });
    expect(node.received.length).toBe(count);
  });

  it("surfaces a tampered signature, refused by the node, as PROVIDER_FAILURE without leaking keys", async () => {
    const tamper: typeof fetch = async (url, init) => {
      if (String(url).endsWith("/send_transaction")) {
        const body = JSON.parse(String(init?.body));
        const other = PrivateKey.generate("K1");
        // A well-formed signature by a key that is not on the sponsor's authority.
        body.signatures = [other.signDigest(Buffer.alloc(32, 7)).toString()];
        return fetch(url, { ...init, body: JSON.stringify(body) });
      }
      return fetch(url, init);
    };
    const name = generateAccountName();
    const owner = PrivateKey.generate("K1").toPublic().toString();
    const err = await caught(createAntelopeChain(config, { fetch: tamper }).createAccount({ name, ownerKey: owner, activeKey: owner }));
    expect(isAppError(err) && err.code).toBe("PROVIDER_FAILURE");
    expect(isAppError(err) && err.details).toEqual({ chainError: "unsatisfied_authorization", chainErrorCode: 3090003 });
    expect(String((err as Error).message)).not.toMatch(/PUB_|EOS[1-9A-Za-z]{20}|PVT_/);
    expect(node.received.at(-1)).toMatchObject({ accepted: false, error: "unsatisfied_authorization" });
    expect(node.accounts.has(name)).toBe(false);
  });

  it("refuses a transaction signed with the wrong sponsor key", async () => {
    const wrong = chainConfigFromEnv(envFor(node.url, { CHAIN_SPONSOR_PRIVATE_KEY: PrivateKey.generate("K1").toString() }));
    const name = generateAccountName();
    const owner = PrivateKey.generate("K1").toPublic().toString();
    const err = await caught(createAntelopeChain(wrong).createAccount({ name, ownerKey: owner, activeKey: owner }));
    expect(isAppError(err) && err.code).toBe("PROVIDER_FAILURE");
    expect(node.accounts.has(name)).toBe(false);
  });

  it("maps an unreachable node and a 503 without a chain error to PROVIDER_UNAVAILABLE", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const gone = createAntelopeChain(chainConfigFromEnv(envFor(`http://127.0.0.1:${port}`)));
    const err = await caught(gone.getAccount("sponsor.bi"));
    expect(isAppError(err) && err.code).toBe("PROVIDER_UNAVAILABLE");

    node.setMode("unavailable");
    try {
      const busy = await caught(
        createAntelopeChain(config).createAccount({
          name: generateAccountName(),
          ownerKey: sponsorKey.toPublic().toString(),
          activeKey: sponsorKey.toPublic().toString(),
        }),
      );
      expect(isAppError(busy) && busy.code).toBe("PROVIDER_UNAVAILABLE");
    } finally {
      node.setMode("ok");
    }
  });

  it("reads token transfers from the history API, only from the token contract", async () => {
    const chain = createAntelopeChain(config);
    const t = { from: "payer.bi", to: "treasury.bi", quantity: "25.0000 EOS", memo: "checkout:42" };
    const pending = node.addTransfer({ ...t, irreversible: false });
    const final = node.addTransfer({ ...t, irreversible: true, hexOnly: true });
    const fake = node.addTransfer({ ...t, irreversible: true, contract: "fake.token" });
    expect(await chain.getTransfer(pending)).toEqual({ id: pending, ...t, irreversible: false });
    expect(await chain.getTransfer(final)).toEqual({ id: final, ...t, irreversible: true });
    expect(await chain.getTransfer(fake)).toBeNull();
    expect(await chain.getTransfer("a".repeat(64))).toBeNull();
    expect(await chain.getTransfer("nope")).toBeNull();
  });
});

describe("chainConfigFromEnv", () => {
  it("names every bad variable and never prints a value", () => {
    const secret = "5Kbadbadbadbadbadbadbadbadbadbadbadbadbadbadbadbadbad";
    let message = "";
    try {
      chainConfigFromEnv({
        CHAIN_NAME: "EOS!",
        CHAIN_SPONSOR_ACCOUNT: "Bad",
        CHAIN_SPONSOR_PRIVATE_KEY: secret,
        CHAIN_NET_STAKE: "1.0000 EOS",
        CHAIN_CPU_STAKE: "1.00 WAX",
      });
    } catch (e) {
      message = (e as Error).message;
    }
    for (const v of ["CHAIN_API_URL", "CHAIN_NAME", "CHAIN_SPONSOR_ACCOUNT", "CHAIN_SPONSOR_PRIVATE_KEY"]) expect(message).toContain(v);
    expect(message).not.toContain(secret);
  });

  it("defaults the permission, cosigner, RAM and token contract", () => {
    const c = chainConfigFromEnv({ ...envFor("http://127.0.0.1:1/"), CHAIN_FAUCET_COSIGNER: "", CHAIN_FAUCET_COSIGNER_PRIVATE_KEY: "" });
    expect(c).toMatchObject({
      apiUrl: "http://127.0.0.1:1",
      sponsor: { actor: "sponsor.bi", permission: "active" },
      cosigner: "sponsor.bi@active",
      ramBytes: 4096,
      tokenContract: "eosio.token",
    });
    expect(c.cosignerKey.toString()).toBe(sponsorKey.toString());
  });
});
