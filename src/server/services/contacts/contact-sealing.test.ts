import { describe, expect, it } from "vitest";
import { openContact, openContacts } from "@/server/crypto/account-box";
import { open } from "@/server/crypto/secret-box";
import type { Db } from "@/server/db/client";
import { contactHash } from "@/server/platform/contact-address";
import { migratePersonData, runRetention } from "@/server/services/people";
import { approvedPersonWithToken, uniqueName, walletKey, walletSign } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";

// An account's contacts are sealed under a data key of the account's own, with keyed hashes of
// organization and address beside them for lookups and uniqueness; the addresses of one-time codes
// and proof tokens are sealed with BI_ENCRYPTION_KEY with the same hashes (docs/data-protection.md).
// Erasure and the retention run destroy the key. Contacts written in clear before are still found
// by value until the person data migration seals them.

type Api = ReturnType<typeof client>;

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg();
  return { db, org, api: client(url, org.apiKey) };
}

async function emailProof(api: Api, email: string): Promise<string> {
  const start = await api.post("/v1/email/otp/start", { email });
  expect(start.status, start.text).toBe(200);
  const confirm = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
  expect(confirm.status, confirm.text).toBe(200);
  return confirm.body.emailProofToken;
}

/** The SMS goes to the dev outbox (no SMS provider here): the code is read from there. */
async function phoneProof(api: Api, db: Db, phone: string): Promise<string> {
  const start = await api.post("/v1/phone/otp/start", { phone });
  expect(start.status, start.text).toBe(200);
  const sms = await db.devOutboxMessage.findFirstOrThrow({ where: { to: phone, channel: "phone" }, orderBy: { createdAt: "desc" } });
  const confirm = await api.post("/v1/phone/otp/confirm", { challengeId: start.body.challengeId, code: /(\d{6})/.exec(sms.body)![1] });
  expect(confirm.status, confirm.text).toBe(200);
  return confirm.body.phoneProofToken;
}

type StoredAccount = { id: string; email: string | null; emailHash: string | null; phone: string | null; phoneHash: string | null };

const stored = async (db: Db, did: string) =>
  (
    await db.$queryRaw<(StoredAccount & { dataKeySealed: string | null })[]>`
      SELECT id::text AS id, email, "emailHash", phone, "phoneHash", "dataKeySealed" FROM accounts WHERE did = ${did}`
  )[0]!;

describe("an account's contacts at rest", () => {
  it("holds ciphertext under the account's data key and keyed hashes, never the address; the codes hold theirs sealed; reads show them masked", async () => {
    const { db, org, api } = await setup();
    const email = `adjoa.${uniqueName()}@mail.example`;
    const phone = "+233241234567";
    const created = await api.post("/v1/accounts/free", {
      ownerPublicKey: walletKey().publicKey,
      emailProofToken: await emailProof(api, email),
      phoneProofToken: await phoneProof(api, db, phone),
    });
    expect(created.status, created.text).toBe(201);
    const masked = { email: "a***@mail.example", emailVerified: true, phone: "+233*****4567", phoneVerified: true };
    expect(created.body.contacts).toEqual(masked);

    const row = await stored(db, created.body.accountDid);
    expect(row).toEqual({
      id: row.id,
      email: expect.stringMatching(new RegExp(`^a1\\.${row.id}\\.`)),
      emailHash: contactHash(org.orgId, "email", email),
      phone: expect.stringMatching(new RegExp(`^a1\\.${row.id}\\.`)),
      phoneHash: contactHash(org.orgId, "phone", phone),
      dataKeySealed: expect.stringMatching(/^v1\./),
    });
    for (const v of [email, phone, phone.slice(1), "241234567"]) expect(JSON.stringify(row)).not.toContain(v);
    expect(openContacts(row)).toEqual({ email, phone });

    // The codes and proofs that proved them: sealed, with the account's hashes.
    const codes = await db.$queryRaw<{ address: string; addressHash: string }[]>`
      SELECT address, "addressHash" FROM otp_challenges WHERE "orgId" = ${org.orgId}::uuid
      UNION ALL SELECT address, "addressHash" FROM proof_tokens WHERE "orgId" = ${org.orgId}::uuid`;
    expect(codes).toHaveLength(4);
    for (const c of codes) {
      expect(c.address).toMatch(/^v1\./);
      expect([email, phone]).toContain(open(c.address));
      expect([row.emailHash, row.phoneHash]).toContain(c.addressHash);
    }

    // Every read opens them and shows them masked.
    const did = encodeURIComponent(created.body.accountDid);
    expect((await api.get(`/v1/accounts/${did}/contact`)).body).toEqual({ accountDid: created.body.accountDid, ...masked });
    expect((await api.get(`/v1/accounts/${did}`)).body.contacts).toEqual(masked);
    expect((await api.get("/v1/admin/accounts")).body.accounts[0].contacts).toEqual(masked);
  });

  it("refuses a taken email or number by its keyed hash: email_taken at the code and at create, phone_taken at create, and at a contact change", async () => {
    const { db, api } = await setup();
    const email = `kojo.${uniqueName()}@mail.example`;
    const phone = "+233241230001";
    // Two proofs of each, both taken before any account holds the address.
    const emails = [await emailProof(api, email), await emailProof(api, email)];
    const phones = [await phoneProof(api, db, phone), await phoneProof(api, db, phone)];
    const first = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, emailProofToken: emails[0] });
    expect(first.status, first.text).toBe(201);
    const second = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, emailProofToken: emails[1] });
    expect(second.status).toBe(409);
    expect(second.body.error.details.reason).toBe("email_taken");
    const again = await api.post("/v1/email/otp/start", { email });
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe("email_taken");

    expect((await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, phoneProofToken: phones[0] })).status).toBe(201);
    const taken = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, phoneProofToken: phones[1] });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details.reason).toBe("phone_taken");

    // Another account asking for the email, signed by its own key.
    const key = walletKey();
    const other = await api.post("/v1/accounts/free", { ownerPublicKey: key.publicKey });
    const challenge = await api.post("/v1/accounts/contact/challenge", { accountDid: other.body.accountDid, channel: "email" });
    const change = await api.post("/v1/accounts/contact/email/start", {
      accountDid: other.body.accountDid,
      email,
      nonce: challenge.body.nonce,
      signature: walletSign(key.privateKey, challenge.body.payloadToSign),
    });
    expect(change.status).toBe(409);
    expect(change.body.error.details.reason).toBe("contact_bound_elsewhere");
  });

  it("finds a contact written in clear before sealing by value, and by its hash once the migration has sealed it", async () => {
    const { db, org, api } = await setup();
    const email = `ekua.${uniqueName()}@mail.example`;
    const phone = "+233241230002";
    const name = uniqueName();
    const did = `did:antelope:sandbox:${name}`;
    // As the service wrote it before it sealed contacts: in clear, no hash, no key.
    await db.account.create({
      data: {
        orgId: org.orgId,
        chain: "sandbox",
        name,
        did,
        ownerPublicKey: "PUB_K1_test",
        activePublicKey: "PUB_K1_test",
        email,
        emailVerifiedAt: new Date(),
        phone,
        phoneVerifiedAt: new Date(),
      },
    });
    const masked = { accountDid: did, email: "e***@mail.example", emailVerified: true, phone: "+233*****0002", phoneVerified: true };
    const proof = await phoneProof(api, db, phone);
    const refusals = async () => {
      expect((await api.get(`/v1/accounts/${encodeURIComponent(did)}/contact`)).body).toEqual(masked);
      expect((await api.post("/v1/email/otp/start", { email })).body.error.details.reason).toBe("email_taken");
      // The proof is not spent by a refused create: the same one is refused again.
      const create = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, phoneProofToken: proof });
      expect(create.status).toBe(409);
      expect(create.body.error.details.reason).toBe("phone_taken");
    };
    await refusals();

    await migratePersonData(db);
    const row = await stored(db, did);
    expect(row).toMatchObject({ emailHash: contactHash(org.orgId, "email", email), phoneHash: contactHash(org.orgId, "phone", phone) });
    expect(row.email).toMatch(/^a1\./);
    expect(openContacts(row)).toEqual({ email, phone });
    await refusals();
  });

  it("cannot be opened once a person linked to the account is erased, nor after the retention run's contact-only erasure; their codes go", async () => {
    const { db, org, api } = await setup();
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
    const email = `yaw.${uniqueName()}@mail.example`;
    const phone = "+233241230003";
    const { person, token } = await approvedPersonWithToken(org.orgId);
    const created = await api.post("/v1/accounts/free", {
      ownerPublicKey: walletKey().publicKey,
      kycCreateToken: token,
      emailProofToken: await emailProof(api, email),
      phoneProofToken: await phoneProof(api, db, phone),
    });
    expect(created.status, created.text).toBe(201);
    const account = await db.account.findFirstOrThrow({ where: { did: created.body.accountDid } });
    await db.accountBinding.create({
      data: { orgId: org.orgId, accountId: account.id, personId: person.id, bindingVcHash: "x", credential: {}, issuerKeyId: "k" },
    });
    const hashes = [account.emailHash!, account.phoneHash!];
    const codesOf = async () =>
      (await db.otpChallenge.count({ where: { addressHash: { in: hashes } } })) +
      (await db.proofToken.count({ where: { addressHash: { in: hashes } } }));
    expect(await codesOf()).toBe(4);

    const erased = await api.post(`/v1/people/${person.id}/erase`, {});
    expect(erased.status, erased.text).toBe(200);
    const after = await stored(db, account.did);
    expect(after).toMatchObject({ email: null, emailHash: null, phone: null, phoneHash: null, dataKeySealed: null });
    // A copy of the sealed contacts taken before opens with nothing the database still holds.
    expect(openContact(account.email, after.dataKeySealed)).toBeNull();
    expect(openContact(account.phone, after.dataKeySealed)).toBeNull();
    expect(await codesOf()).toBe(0);

    // An account no person was ever linked to, whose contacts are older than the policy.
    expect((await api.put("/v1/admin/retention", { contactOnlyDays: 30 })).status).toBe(200);
    const lone = await api.post("/v1/accounts/free", {
      ownerPublicKey: walletKey().publicKey,
      emailProofToken: await emailProof(api, `lone.${email}`),
    });
    expect(lone.status, lone.text).toBe(201);
    await db.$executeRaw`
      UPDATE accounts SET "createdAt" = now() - interval '40 days', "emailVerifiedAt" = now() - interval '40 days'
      WHERE did = ${lone.body.accountDid}`;
    const before = await stored(db, lone.body.accountDid);
    expect(openContacts(before).email).toBe(`lone.${email}`);
    const ran = await runRetention(db, org.orgId);
    expect(ran.accounts).toEqual([{ accountDid: lone.body.accountDid }]);
    const blanked = await stored(db, lone.body.accountDid);
    expect(blanked).toMatchObject({ email: null, emailHash: null, phone: null, dataKeySealed: null });
    expect(openContact(before.email, blanked.dataKeySealed)).toBeNull();
  });
});
