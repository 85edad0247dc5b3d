import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openContacts } from "../../crypto/account-box";
import { getDb } from "../../db/client";
import { simulatedUpdateAuth } from "../../providers/chain/simulated-updateauth";
import { uniqueName, walletKey, walletSign } from "../../testing/factories";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { startTestSmtpServer, type TestSmtpServer } from "../../testing/smtp-test-server";
import { identityProofFor, keySigner, signedProofTransaction, signText } from "../../testing/wallet-proofs";

// Email in this file goes over real SMTP to a server the test runs, so the notice to the previous
// address is checked as it arrives.
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startTestSmtpServer();
  process.env.SMTP_URL = smtp.url;
  process.env.EMAIL_FROM = "Bind Identity <no-reply@bind.test>";
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  delete process.env.EMAIL_FROM;
  await smtp.close();
});

/** The account's contacts as stored, opened under its data key. */
async function contactsOf(did: string) {
  return openContacts(await (await getDb()).account.findFirstOrThrow({ where: { did } }));
}

async function accountWithEmail() {
  const { url, db } = await testServer();
  const org = await createTestOrg();
  const api = client(url, org.apiKey);
  const key = walletKey();
  const email = `old-${uniqueName()}@example.test`;
  const start = await api.post("/v1/email/otp/start", { email });
  const proof = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
  const created = await api.post("/v1/accounts/free", { ownerPublicKey: key.publicKey, emailProofToken: proof.body.emailProofToken });
  expect(created.status).toBe(201);
  return { db, org, api, key, email, did: created.body.accountDid as string };
}

describe("contact change", () => {
  it("moves the account to the new address only at confirm, and tells the previous address over SMTP", async () => {
    const { api, key, email, did } = await accountWithEmail();
    const challenge = await api.post("/v1/accounts/contact/challenge", { accountDid: did, channel: "email" });
    expect(challenge.status).toBe(200);
    const lines = challenge.body.payloadToSign.split("\n");
    expect(lines).toEqual([
      "Service: Bind Identity",
      "Action: change email contact",
      `Account: ${did}`,
      "Subject: email contact",
      `Nonce: ${challenge.body.nonce}`,
      `Expires: ${challenge.body.expiresAt}`,
    ]);
    const newEmail = `new-${uniqueName()}@example.test`;
    const start = await api.post("/v1/accounts/contact/email/start", {
      accountDid: did,
      email: newEmail,
      nonce: challenge.body.nonce,
      signature: walletSign(key.privateKey, challenge.body.payloadToSign),
    });
    expect(start.status).toBe(200);
    expect((await contactsOf(did)).email).toBe(email);
    const codeMail = smtp.received.find((m) => m.envelopeTo.includes(newEmail))!;
    expect(codeMail.text).toContain(start.body.devCode);

    const confirm = await api.post("/v1/accounts/contact/email/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
    expect(confirm.status).toBe(200);
    expect(confirm.body).toMatchObject({ accountDid: did, channel: "email", changed: true });
    expect((await contactsOf(did)).email).toBe(newEmail);
    const notice = smtp.received.find((m) => m.envelopeTo.includes(email) && /changed/i.test(m.headers.subject ?? ""));
    expect(notice).toBeDefined();
    expect(notice!.text).not.toContain(newEmail);
    const contact = await api.get(`/v1/accounts/${encodeURIComponent(did)}/contact`);
    expect(contact.body.email).toBe("n***@example.test");
    expect(JSON.stringify(contact.body)).not.toContain(newEmail);
  });

  it("refuses a signature from another key with INVALID_SIGNATURE and keeps the nonce usable", async () => {
    const { api, key, did } = await accountWithEmail();
    const challenge = await api.post("/v1/accounts/contact/challenge", { accountDid: did, channel: "email" });
    const body = { accountDid: did, email: `x-${uniqueName()}@example.test`, nonce: challenge.body.nonce };
    const forged = await api.post("/v1/accounts/contact/email/start", {
      ...body,
      signature: walletSign(walletKey().privateKey, challenge.body.payloadToSign),
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe("INVALID_SIGNATURE");
    const otherText = await api.post("/v1/accounts/contact/email/start", {
      ...body,
      signature: walletSign(key.privateKey, "something else"),
    });
    expect(otherText.body.error.code).toBe("INVALID_SIGNATURE");
    const genuine = await api.post("/v1/accounts/contact/email/start", {
      ...body,
      signature: walletSign(key.privateKey, challenge.body.payloadToSign),
    });
    expect(genuine.status).toBe(200);
  });

  it("refuses a nonce used twice", async () => {
    const { api, key, did } = await accountWithEmail();
    const challenge = await api.post("/v1/accounts/contact/challenge", { accountDid: did, channel: "email" });
    const sig = walletSign(key.privateKey, challenge.body.payloadToSign);
    const first = await api.post("/v1/accounts/contact/email/start", {
      accountDid: did,
      email: `a-${uniqueName()}@example.test`,
      nonce: challenge.body.nonce,
      signature: sig,
    });
    expect(first.status).toBe(200);
    const second = await api.post("/v1/accounts/contact/email/start", {
      accountDid: did,
      email: `b-${uniqueName()}@example.test`,
      nonce: challenge.body.nonce,
      signature: sig,
    });
    expect(second.status).toBe(409);
    expect(second.body.error.details.reason).toBe("nonce_used");
  });

  it("gives the nonce back when the code cannot be sent, so the signed request can be retried", async () => {
    const { api, key, did } = await accountWithEmail();
    const challenge = await api.post("/v1/accounts/contact/challenge", { accountDid: did, channel: "email" });
    const signed = { accountDid: did, nonce: challenge.body.nonce, signature: walletSign(key.privateKey, challenge.body.payloadToSign) };
    const refused = await api.post("/v1/accounts/contact/email/start", { ...signed, email: `reject-${uniqueName()}@example.test` });
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe("PROVIDER_FAILURE");
    const retry = await api.post("/v1/accounts/contact/email/start", { ...signed, email: `ok-${uniqueName()}@example.test` });
    expect(retry.status).toBe(200);
  });

  it("answers 409 contact_bound_elsewhere for an address on another account, and changes nothing", async () => {
    const first = await accountWithEmail();
    const { api, key, did, db } = first;
    const other = await first.api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey });
    const taken = `taken-${uniqueName()}@example.test`;
    // Written in clear, as before contacts were sealed: still found by value.
    await db.account.update({ where: { did: other.body.accountDid }, data: { email: taken, emailVerifiedAt: new Date() } });
    const challenge = await api.post("/v1/accounts/contact/challenge", { accountDid: did, channel: "email" });
    const res = await api.post("/v1/accounts/contact/email/start", {
      accountDid: did,
      email: taken,
      nonce: challenge.body.nonce,
      signature: walletSign(key.privateKey, challenge.body.payloadToSign),
    });
    expect(res.status).toBe(409);
    expect(res.body.error.details.reason).toBe("contact_bound_elsewhere");
    expect((await contactsOf(did)).email).toBe(first.email);
  });

  it("changes the phone number with an SMS code, signed by the account's key", async () => {
    const { db, api, key, did } = await accountWithEmail();
    const challenge = await api.post("/v1/accounts/contact/challenge", { accountDid: did, channel: "phone" });
    const start = await api.post("/v1/accounts/contact/phone/start", {
      accountDid: did,
      phone: "0201234567",
      nonce: challenge.body.nonce,
      signature: walletSign(key.privateKey, challenge.body.payloadToSign),
    });
    expect(start.status).toBe(200);
    expect(start.body.devCode).toBeUndefined();
    const sms = (await db.devOutboxMessage.findFirst({ where: { to: "+233201234567" }, orderBy: { createdAt: "desc" } }))!;
    const code = /(\d{6})/.exec(sms.body)![1];
    const confirm = await api.post("/v1/accounts/contact/phone/confirm", { challengeId: start.body.challengeId, code });
    expect(confirm.status).toBe(200);
    expect(await contactsOf(did)).toEqual({ email: expect.stringMatching(/^old-/), phone: "+233201234567" });
  });

  it("takes the wallet proofs bind takes: an identity proof or signed transaction of the active authority, and several keys of a multisig", async () => {
    const { db, api, key, did } = await accountWithEmail();
    const name = did.split(":").at(-1)!;
    const wallet = keySigner(key.privateKey);
    const challenge = async () => (await api.post("/v1/accounts/contact/challenge", { accountDid: did, channel: "email" })).body;
    const start = (c: { nonce: string }, proof: Record<string, unknown>) =>
      api.post("/v1/accounts/contact/email/start", {
        accountDid: did,
        email: `new-${uniqueName()}@example.test`,
        nonce: c.nonce,
        ...proof,
      });

    const c1 = await challenge();
    const byIdentity = await start(c1, {
      identityProof: identityProofFor(c1.identityRequest.uri, { actor: name, permission: "active" }, [wallet]),
    });
    expect(byIdentity.status, byIdentity.text).toBe(200);
    const c2 = await challenge();
    expect((await start(c2, { signedTransaction: signedProofTransaction(c2.transaction, [wallet]) })).status).toBe(200);

    // The active permission becomes 2 of 2: one key no longer authorises a change, both do.
    const other = keySigner(walletKey().privateKey);
    const both = { threshold: 2, keys: [wallet, other].map((s) => ({ key: s.publicKey, weight: 1 })), accounts: [], waits: [] };
    await simulatedUpdateAuth(db, name, {
      authorities: { owner: { ...both, keys: [{ key: walletKey().publicKey, weight: 2 }] }, active: both },
    });
    const c3 = await challenge();
    const one = await start(c3, { signature: signText(wallet, c3.payloadToSign) });
    expect([one.status, one.body.error.code, one.body.error.details.reason]).toEqual([400, "INVALID_SIGNATURE", "threshold_not_met"]);
    const two = await start(c3, { signatures: [signText(wallet, c3.payloadToSign), signText(other, c3.payloadToSign)] });
    expect(two.status, two.text).toBe(200);
  });
});
