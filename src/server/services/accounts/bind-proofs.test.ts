import { PrivateKey } from "@wharfkit/antelope";
import { describe, expect, it } from "vitest";
import { bindingKeyWatchJob } from "../../jobs/binding-key-watch";
import { verifyWalletProof } from "../../platform/wallet-proof";
import { createSimulatedChain, generateAccountName } from "../../providers/chain";
import type { AuthorityJson } from "../../providers/chain/abi";
import { simulatedUpdateAuth } from "../../providers/chain/simulated-updateauth";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { accountReadyToBind } from "../../testing/kyc-flow";
import { orgFootprint } from "../../testing/security-suite";
import {
  type DigestSigner,
  identityProofFor,
  keySigner,
  signedProofTransaction,
  signText,
  webAuthnSigner,
} from "../../testing/wallet-proofs";

type Challenge = {
  nonce: string;
  payloadToSign: string;
  expiresAt: string;
  identityRequest: { uri: string; scope: string; chainId: string; expiresAt: string };
  transaction: { chainId: string; expiresAt: string; action: { account: string; name: string; authorization: any[]; data: string } };
};

const newKey = () => keySigner(PrivateKey.generate("K1"));
const keys = (threshold: number, signers: DigestSigner[], accounts: AuthorityJson["accounts"] = []): AuthorityJson => ({
  threshold,
  keys: signers.map((s) => ({ key: s.publicKey, weight: 1 })),
  accounts,
  waits: [],
});

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  const api = client(url, org.apiKey);
  const subject = await accountReadyToBind(url, api);
  const accountName = subject.accountDid.split(":").at(-1)!;
  const challenge = async () => {
    const res = await api.post("/v1/bind/challenge", { accountDid: subject.accountDid, personDid: subject.personDid });
    expect(res.status, res.text).toBe(200);
    return res.body as Challenge;
  };
  const confirm = (c: Challenge, proof: Record<string, unknown>) =>
    api.post("/v1/bind/confirm", { accountDid: subject.accountDid, personDid: subject.personDid, nonce: c.nonce, ...proof });
  /** Sets the account's permissions on the sandbox chain, as updateauth would. */
  const setAuth = (authorities: Record<string, AuthorityJson>) => simulatedUpdateAuth(db, accountName, { authorities });
  return { url, db, org, api, subject, accountName, wallet: keySigner(subject.wallet.privateKey), challenge, confirm, setAuth };
}

const refusal = (res: { status: number; body: any }) => ({
  status: res.status,
  code: res.body.error?.code,
  reason: res.body.error?.details?.reason,
});

describe("bind with an ESR identity proof", () => {
  it("accepts the proof a wallet makes for the challenge's identity request, signed by the active key", async () => {
    const s = await setup();
    const c = await s.challenge();
    expect(c.identityRequest.uri).toMatch(/^esr:/);
    const proof = identityProofFor(c.identityRequest.uri, { actor: s.accountName, permission: "active" }, [s.wallet]);
    const res = await s.confirm(c, { identityProof: proof });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ bound: true, lifecycle: "bound" });
    const binding = await s.db.accountBinding.findFirstOrThrow({ where: { orgId: s.org.orgId } });
    // The sandbox account's key also holds owner (beside the faucet): the watch follows both.
    expect(binding).toMatchObject({
      signingKey: s.wallet.publicKey,
      signingKeys: [s.wallet.publicKey],
      signingPermissions: ["owner", "active"],
    });
  });

  it("refuses it for another challenge, another chain, after its expiry or past the challenge's, and writes nothing; the nonce stays usable", async () => {
    const s = await setup();
    const first = await s.challenge();
    const c = await s.challenge();
    const signer = { actor: s.accountName, permission: "active" };
    const before = await orgFootprint(s.db, s.org.orgId);
    const cases: [Record<string, unknown>, string][] = [
      [{ identityProof: identityProofFor(first.identityRequest.uri, signer, [s.wallet]) }, "other_challenge"],
      [{ identityProof: identityProofFor(c.identityRequest.uri, signer, [s.wallet], { chainId: "aa".repeat(32) }) }, "wrong_chain"],
      [
        { identityProof: identityProofFor(c.identityRequest.uri, signer, [s.wallet], { expiration: new Date(Date.now() - 1000) }) },
        "expired",
      ],
      [
        { identityProof: identityProofFor(c.identityRequest.uri, signer, [s.wallet], { expiration: new Date(Date.now() + 3_600_000) }) },
        "outlives_challenge",
      ],
      [{ identityProof: identityProofFor(c.identityRequest.uri, { ...signer, actor: "someoneelse" }, [s.wallet]) }, "other_account"],
      [{ identityProof: identityProofFor(c.identityRequest.uri, signer, [newKey()]) }, "threshold_not_met"],
      [{ identityProof: "EOSIO bm90IGEgcHJvb2Y" }, "malformed"],
    ];
    for (const [proof, reason] of cases) {
      const res = await s.confirm(c, proof);
      expect(refusal(res), reason).toEqual({ status: 400, code: "INVALID_SIGNATURE", reason });
    }
    expect(await orgFootprint(s.db, s.org.orgId)).toEqual(before);
    const ok = await s.confirm(c, { identityProof: identityProofFor(c.identityRequest.uri, signer, [s.wallet]) });
    expect(ok.status, ok.text).toBe(200);
    // The spent challenge's proof cannot be used again, nor can the first challenge's on another.
    const replay = await s.confirm(c, { identityProof: identityProofFor(c.identityRequest.uri, signer, [s.wallet]) });
    expect(replay.status).toBe(409);
  });
});

describe("bind with a signed, unbroadcast transaction", () => {
  it("accepts the challenge's action signed by the account's key, packed or as JSON", async () => {
    const s = await setup();
    const c = await s.challenge();
    expect(c.transaction.action).toMatchObject({
      account: "",
      name: "bindproof",
      authorization: [{ actor: s.accountName, permission: "active" }],
    });
    const res = await s.confirm(c, { signedTransaction: signedProofTransaction(c.transaction, [s.wallet]) });
    expect(res.status, res.text).toBe(200);
  });

  it("refuses a transaction for another challenge, another chain or with another action, and one already expired", async () => {
    const s = await setup();
    const first = await s.challenge();
    const c = await s.challenge();
    const cases: [Record<string, unknown>, string][] = [
      [{ signedTransaction: signedProofTransaction(first.transaction, [s.wallet]) }, "other_challenge"],
      // The chain id is in the signed digest only: signed for another chain, no key of the account recovers.
      [{ signedTransaction: signedProofTransaction(c.transaction, [s.wallet], { chainId: "bb".repeat(32) }) }, "threshold_not_met"],
      [{ signedTransaction: signedProofTransaction(c.transaction, [s.wallet], { expiration: new Date(Date.now() - 1000) }) }, "expired"],
      [{ signedTransaction: signedProofTransaction(c.transaction, [s.wallet], { permission: "claim" }) }, "permission_not_accepted"],
      [
        {
          signedTransaction: signedProofTransaction({ ...c.transaction, action: { ...c.transaction.action, name: "transfer" } }, [
            s.wallet,
          ]),
        },
        "malformed",
      ],
    ];
    for (const [proof, reason] of cases)
      expect(refusal(await s.confirm(c, proof)), reason).toEqual({ status: 400, code: "INVALID_SIGNATURE", reason });
    expect((await s.confirm(c, { signedTransaction: signedProofTransaction(c.transaction, [s.wallet]) })).status).toBe(200);
  });
});

describe("authorities as the chain evaluates them", () => {
  it("a 2-of-3 active permission: one signature is refused, two are accepted and both keys are remembered", async () => {
    const s = await setup();
    const [a, b, c3] = [newKey(), newKey(), newKey()];
    await s.setAuth({ owner: keys(1, [newKey()]), active: keys(2, [a, b, c3]) });
    const c = await s.challenge();
    const one = await s.confirm(c, { signature: signText(a, c.payloadToSign) });
    expect(refusal(one)).toEqual({ status: 400, code: "INVALID_SIGNATURE", reason: "threshold_not_met" });
    expect(one.body.error.details).toMatchObject({ weight: 1, threshold: 2 });
    // The same key twice is one key's weight.
    const twice = await s.confirm(c, { signatures: [signText(a, c.payloadToSign), signText(a, c.payloadToSign)] });
    expect(refusal(twice).reason).toBe("threshold_not_met");
    const tx1 = await s.confirm(c, { signedTransaction: signedProofTransaction(c.transaction, [c3]) });
    expect(refusal(tx1).reason).toBe("threshold_not_met");
    const two = await s.confirm(c, { signatures: [signText(a, c.payloadToSign), signText(c3, c.payloadToSign)] });
    expect(two.status, two.text).toBe(200);
    const binding = await s.db.accountBinding.findFirstOrThrow({ where: { orgId: s.org.orgId } });
    expect(binding).toMatchObject({ signingKeys: [a.publicKey, c3.publicKey], signingPermissions: ["active"] });
  });

  it("accepts a WebAuthn key's signature, made as an authenticator makes it, as a message, an identity proof and a transaction", async () => {
    const s = await setup();
    const wa = webAuthnSigner();
    expect(wa.publicKey).toMatch(/^PUB_WA_/);
    await s.setAuth({ owner: keys(1, [newKey()]), active: keys(1, [wa]) });
    const c = await s.challenge();
    // A WebAuthn signature by another passkey, or over another challenge, does not pass.
    expect(refusal(await s.confirm(c, { signature: signText(webAuthnSigner(), c.payloadToSign) })).reason).toBe("threshold_not_met");
    expect(refusal(await s.confirm(c, { signature: signText(wa, "another text") })).reason).toBe("other_challenge");
    // Each form, checked by the verifier itself (a bind would spend the challenge).
    const account = await s.db.account.findFirstOrThrow({ where: { orgId: s.org.orgId } });
    const nonce = await s.db.signatureNonce.findUniqueOrThrow({ where: { nonce: c.nonce } });
    const signer = { signingKey: wa.publicKey, signingKeys: [wa.publicKey], signingPermissions: ["active"] };
    expect(await verifyWalletProof(s.db, account, nonce, { signature: signText(wa, c.payloadToSign) })).toEqual(signer);
    const proof = identityProofFor(c.identityRequest.uri, { actor: s.accountName, permission: "active" }, [wa]);
    expect(await verifyWalletProof(s.db, account, nonce, { identityProof: proof })).toEqual(signer);
    const tx = signedProofTransaction(c.transaction, [wa]);
    expect(tx.signatures[0]).toMatch(/^SIG_WA_/);
    const res = await s.confirm(c, { signedTransaction: tx });
    expect(res.status, res.text).toBe(200);
    expect((await s.db.accountBinding.findFirstOrThrow({ where: { orgId: s.org.orgId } })).signingKeys).toEqual([wa.publicKey]);
  });

  it("resolves a delegated other@active, and the key watch suspends the binding when the delegate's keys change", async () => {
    const s = await setup();
    const delegate = generateAccountName();
    const delegateKey = newKey();
    await createSimulatedChain(s.db).createAccount({ name: delegate, ownerKey: delegateKey.publicKey, activeKey: delegateKey.publicKey });
    await s.setAuth({
      owner: keys(1, [newKey()]),
      active: keys(1, [], [{ permission: { actor: delegate, permission: "active" }, weight: 1 }]),
    });
    const c = await s.challenge();
    expect(refusal(await s.confirm(c, { signature: signText(s.wallet, c.payloadToSign) })).reason).toBe("threshold_not_met");
    const res = await s.confirm(c, { signedTransaction: signedProofTransaction(c.transaction, [delegateKey]) });
    expect(res.status, res.text).toBe(200);
    const binding = () => s.db.accountBinding.findFirstOrThrow({ where: { orgId: s.org.orgId } });
    expect(await binding()).toMatchObject({ signingKeys: [delegateKey.publicKey], signingPermissions: ["active"] });

    await bindingKeyWatchJob.run(s.db);
    expect((await binding()).status).toBe("active");
    // The delegate rotates its active key: the key that bound no longer speaks for the account.
    await simulatedUpdateAuth(s.db, delegate, { activeKeys: [newKey().publicKey] });
    await bindingKeyWatchJob.run(s.db);
    expect(await binding()).toMatchObject({ status: "suspended", suspendedFor: ["key_changed"] });
  });

  it("never takes the faucet cosigner's key for the holder's consent, though it shares the provisional owner", async () => {
    const s = await setup();
    // The sandbox faucet as an account with a key of its own: its active permission cosigns owner.
    const faucetKey = newKey();
    const chain = createSimulatedChain(s.db);
    if (!(await chain.getAccount("faucet.bi")))
      await chain.createAccount({ name: "faucet.bi", ownerKey: faucetKey.publicKey, activeKey: faucetKey.publicKey });
    else await simulatedUpdateAuth(s.db, "faucet.bi", { ownerKeys: [faucetKey.publicKey], activeKeys: [faucetKey.publicKey] });
    const c = await s.challenge();
    for (const proof of [
      { signature: signText(faucetKey, c.payloadToSign) },
      { signedTransaction: signedProofTransaction(c.transaction, [faucetKey], { permission: "owner" }) },
    ])
      expect(refusal(await s.confirm(c, proof))).toEqual({ status: 400, code: "INVALID_SIGNATURE", reason: "threshold_not_met" });
    expect((await s.confirm(c, { signature: signText(s.wallet, c.payloadToSign) })).status).toBe(200);
  });

  it("a signature made for one challenge is refused on a second", async () => {
    const s = await setup();
    const first = await s.challenge();
    const second = await s.challenge();
    const res = await s.confirm(second, { signature: signText(s.wallet, first.payloadToSign) });
    expect(refusal(res)).toEqual({ status: 400, code: "INVALID_SIGNATURE", reason: "threshold_not_met" });
  });

  it("asks for exactly one proof form, in the documented envelope", async () => {
    const s = await setup();
    const c = await s.challenge();
    for (const body of [{}, { signature: signText(s.wallet, c.payloadToSign), identityProof: "EOSIO x" }]) {
      const res = await s.confirm(c, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(JSON.stringify(res.body.error.details)).toContain("exactly one proof");
    }
  });
});
