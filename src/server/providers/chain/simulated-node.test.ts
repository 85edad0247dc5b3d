import { APIClient, PrivateKey, Serializer } from "@wharfkit/antelope";
import { Session } from "@wharfkit/session";
import { WalletPluginPrivateKey } from "@wharfkit/wallet-plugin-privatekey";
import { describe, expect, it } from "vitest";
import { bindingKeyWatchJob } from "../../jobs/binding-key-watch";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { accountReadyToBind } from "../../testing/kyc-flow";
import { SANDBOX_CHAIN_ID } from "./simulated";

// Unmodified WharfKit code (APIClient, Session and the published private-key wallet plugin)
// against the sandbox chain's node API.
async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  const api = client(url, org.apiKey);
  const subject = await accountReadyToBind(url, api);
  const accountName = subject.accountDid.split(":").at(-1)!;
  const chain = { id: SANDBOX_CHAIN_ID, url: `${url}/v1/sandbox/chain` };
  const session = (key: PrivateKey, permission = "active") =>
    new Session({ chain, permissionLevel: `${accountName}@${permission}`, walletPlugin: new WalletPluginPrivateKey(key) });
  /** Asks for the bind challenge and confirms it with the action the wallet's Session signed, not broadcast. */
  const bindWithSession = async () => {
    const body = { accountDid: subject.accountDid, personDid: subject.personDid };
    const challenge = (await api.post("/v1/bind/challenge", body)).body;
    const signed = await session(subject.wallet.privateKey).transact({ action: challenge.transaction.action }, { broadcast: false });
    const confirmed = await api.post("/v1/bind/confirm", {
      ...body,
      nonce: challenge.nonce,
      signedTransaction: {
        transaction: Serializer.encode({ object: signed.resolved!.transaction }).hexString,
        signatures: signed.signatures.map(String),
      },
    });
    return { challenge, confirmed };
  };
  return { url, db, org, api, subject, accountName, chain, session, bindWithSession };
}

describe("the sandbox chain's node API", () => {
  it("answers get_info and get_account as WharfKit's APIClient reads them", async () => {
    const s = await setup();
    const node = new APIClient({ url: s.chain.url });
    const info = await node.v1.chain.get_info();
    expect(info.chain_id.hexString).toBe(SANDBOX_CHAIN_ID);
    expect(info.last_irreversible_block_id.hexString.slice(0, 8)).toBe(
      info.last_irreversible_block_num.toNumber().toString(16).padStart(8, "0"),
    );
    const account = await node.v1.chain.get_account(s.accountName);
    expect(account.getPermission("active").required_auth.keys.map((k) => String(k.key))).toEqual([s.subject.wallet.publicKey]);
    expect(account.getPermission("owner").required_auth.accounts.map((a) => String(a.permission))).toEqual(["faucet.bi@active"]);
    await expect(node.v1.chain.get_account("nosuchacct12")).rejects.toThrow(/Account Query Exception/);
  });

  it("binds with a WharfKit Session: the challenge's action signed with broadcast off", async () => {
    const s = await setup();
    const { challenge, confirmed } = await s.bindWithSession();
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.lifecycle).toBe("bound");
    // Broadcasting the proof action is refused: it can never execute.
    await expect(s.session(s.subject.wallet.privateKey).transact({ action: challenge.transaction.action })).rejects.toThrow(
      /never executed/,
    );
  });

  it("executes updateauth signed by the account's owner through a Session, and the key watch sees it", async () => {
    const s = await setup();
    const { confirmed: bind } = await s.bindWithSession();
    expect(bind.status, bind.text).toBe(200);

    const next = PrivateKey.generate("K1");
    const updateauth = (signer: PrivateKey) =>
      s.session(signer, "owner").transact({
        action: {
          account: "eosio",
          name: "updateauth",
          authorization: [{ actor: s.accountName, permission: "owner" }],
          data: {
            account: s.accountName,
            permission: "active",
            parent: "owner",
            auth: { threshold: 1, keys: [{ key: next.toPublic().toString(), weight: 1 }], accounts: [], waits: [] },
          },
        },
      });
    // Another key cannot change the account's permissions.
    await expect(updateauth(PrivateKey.generate("K1"))).rejects.toThrow(/does not have signatures/);
    // A transaction whose second action is invalid (threshold out of reach) changes nothing at all.
    const broken = s.session(s.subject.wallet.privateKey, "owner").transact({
      actions: ["active", "owner"].map((permission) => ({
        account: "eosio",
        name: "updateauth",
        authorization: [{ actor: s.accountName, permission: "owner" }],
        data: {
          account: s.accountName,
          permission,
          parent: permission === "owner" ? "" : "owner",
          auth: {
            threshold: permission === "owner" ? 5 : 1,
            keys: [{ key: next.toPublic().toString(), weight: 1 }],
            accounts: [],
            waits: [],
          },
        },
      })),
    });
    await expect(broken).rejects.toThrow();
    const unchanged = await new APIClient({ url: s.chain.url }).v1.chain.get_account(s.accountName);
    expect(unchanged.getPermission("active").required_auth.keys.map((k) => String(k.key))).toEqual([s.subject.wallet.publicKey]);

    await updateauth(s.subject.wallet.privateKey);
    const account = await new APIClient({ url: s.chain.url }).v1.chain.get_account(s.accountName);
    expect(account.getPermission("active").required_auth.keys.map((k) => String(k.key))).toEqual([next.toPublic().toString()]);

    await bindingKeyWatchJob.run(s.db);
    const binding = await s.db.accountBinding.findFirstOrThrow({ where: { orgId: s.org.orgId } });
    expect(binding).toMatchObject({ status: "suspended", suspendedFor: ["key_changed"] });
  });
});
