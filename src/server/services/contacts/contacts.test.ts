import { describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { open } from "../../crypto/secret-box";
import { contactHash } from "../../platform/contact-address";
import { accountRow, uniqueName, walletKey } from "../../testing/factories";
import { client, createTestOrg, testServer } from "../../testing/harness";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg();
  return { db, org, api: client(url, org.apiKey) };
}

/** The SMS went to the dev outbox (no SMS provider in this sandbox); read the code from there. */
async function smsCode(db: any, to: string): Promise<string> {
  const msg = (await db.devOutboxMessage.findFirst({ where: { to, channel: "phone" }, orderBy: { createdAt: "desc" } }))!;
  return /(\d{6})/.exec(msg.body)![1]!;
}

describe("email one-time codes", () => {
  it("issues a masked challenge with a devCode, stores only a hash, and trades the code for a proof token", async () => {
    const { db, org, api } = await setup();
    const email = `Mixed.${uniqueName()}@Example.test`;
    const start = await api.post("/v1/email/otp/start", { email });
    expect(start.status).toBe(200);
    expect(start.body.emailMasked).toBe("m***@example.test");
    expect(start.body.devCode).toMatch(/^\d{6}$/);
    const row = (await db.otpChallenge.findUnique({ where: { id: start.body.challengeId } }))!;
    // Sealed with BI_ENCRYPTION_KEY, found by the keyed hash of organization and address.
    expect(row.address).toMatch(/^v1\./);
    expect(row.address).not.toContain(email.toLowerCase());
    expect(open(row.address)).toBe(email.toLowerCase());
    expect(row.addressHash).toBe(contactHash(org.orgId, "email", email.toLowerCase()));
    expect(row.codeHash).not.toContain(start.body.devCode);
    expect(new Date(start.body.expiresAt).getTime() - Date.now()).toBeGreaterThan(9 * 60 * 1000);
    const confirm = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
    expect(confirm.status).toBe(200);
    expect(confirm.body).toMatchObject({ expiresInSec: 900, emailMasked: "m***@example.test" });
    const again = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe("INVALID_CODE");
  });

  it("counts 5 parallel wrong codes, then refuses even the right code with 429", async () => {
    const { db, api } = await setup();
    const start = await api.post("/v1/email/otp/start", { email: `p-${uniqueName()}@example.test` });
    const right = start.body.devCode as string;
    const wrong = right === "000000" ? "111111" : "000000";
    const guesses = await Promise.all(
      Array.from({ length: 5 }, () => api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: wrong })),
    );
    expect(guesses.map((g) => g.status)).toEqual([400, 400, 400, 400, 400]);
    const last = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: right });
    expect(last.status).toBe(429);
    expect(last.body.error.code).toBe("RATE_LIMITED");
    const row = (await db.otpChallenge.findUnique({ where: { id: start.body.challengeId } }))!;
    expect(row.attempts).toBe(5);
    expect(row.consumedAt).toBeNull();
  });

  it("caps sends at 5 per address per hour", async () => {
    const { api } = await setup();
    const email = `cap-${uniqueName()}@example.test`;
    for (let i = 0; i < 5; i++) expect((await api.post("/v1/email/otp/start", { email })).status).toBe(200);
    const sixth = await api.post("/v1/email/otp/start", { email });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("caps sends at 20 per client IP per hour, across addresses", async () => {
    const { api } = await setup();
    for (let i = 0; i < 20; i++)
      expect((await api.post("/v1/email/otp/start", { email: `ip${i}-${uniqueName()}@example.test` })).status).toBe(200);
    const over = await api.post("/v1/email/otp/start", { email: `ip-over-${uniqueName()}@example.test` });
    expect(over.status).toBe(429);
    expect(over.body.error.details.retryAfterSec).toBeGreaterThan(0);
  });

  it("returns no devCode when BI_DEV_CODES is off", async () => {
    const { api } = await setup();
    process.env.BI_DEV_CODES = "false";
    resetEnvCache();
    try {
      const res = await api.post("/v1/email/otp/start", { email: `nodev-${uniqueName()}@example.test` });
      expect(res.status).toBe(200);
      expect(res.body.devCode).toBeUndefined();
    } finally {
      delete process.env.BI_DEV_CODES;
      resetEnvCache();
    }
  });

  it("refuses an expired proof token at free create", async () => {
    const { db, org, api } = await setup();
    await db.organization.update({ where: { id: org.orgId }, data: { requireEmailProofBeforeFreeCreate: true } });
    const start = await api.post("/v1/email/otp/start", { email: `exp-${uniqueName()}@example.test` });
    const proof = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
    await db.proofToken.updateMany({ where: { challengeId: start.body.challengeId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, emailProofToken: proof.body.emailProofToken });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("email_not_verified");
    expect(await db.account.count({ where: { orgId: org.orgId } })).toBe(0);
  });

  it("rejects a malformed address and an unknown challenge in the envelope", async () => {
    const { api } = await setup();
    const bad = await api.post("/v1/email/otp/start", { email: "not-an-email" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe("body.email");
    expect(JSON.stringify(bad.body)).not.toContain("not-an-email");
    const unknown = await api.post("/v1/email/otp/confirm", { challengeId: "00000000-0000-4000-8000-000000000000", code: "123456" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("INVALID_CODE");
  });
});

describe("phone one-time codes", () => {
  it("normalises a local Ghana number, never returns the code, and confirms without creating a person", async () => {
    const { db, org, api } = await setup();
    const start = await api.post("/v1/phone/otp/start", { phone: "024 123 4567" });
    expect(start.status).toBe(200);
    expect(start.body.devCode).toBeUndefined();
    expect(start.body.phoneMasked).toBe("+233*****4567");
    const people = await db.person.count({ where: { orgId: org.orgId } });
    const code = await smsCode(db, "+233241234567");
    const confirm = await api.post("/v1/phone/otp/confirm", { challengeId: start.body.challengeId, code });
    expect(confirm.status).toBe(200);
    expect(confirm.body).toMatchObject({ expiresInSec: 900, personDid: null, softIdentity: false });
    expect(confirm.body.phoneProofToken).toBeTruthy();
    expect(await db.person.count({ where: { orgId: org.orgId } })).toBe(people);
  });

  it("names the person already known by the verified number", async () => {
    const { db, org, api } = await setup();
    const person = await db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", verifiedPhone: "+233201112222" } });
    const start = await api.post("/v1/phone/otp/start", { phone: "+233201112222" });
    const confirm = await api.post("/v1/phone/otp/confirm", {
      challengeId: start.body.challengeId,
      code: await smsCode(db, "+233201112222"),
    });
    expect(confirm.body.personDid).toBe(`did:web:localhost%3A3000:people:${person.id}`);
    expect(confirm.body.softIdentity).toBe(true);
    const wrong = await api.post("/v1/phone/otp/start", { phone: "12345" });
    expect(wrong.status).toBe(400);
  });

  it("names the approved person bound to the account whose verified phone this is", async () => {
    const { db, org, api } = await setup();
    const phone = "+233205556666";
    const person = await db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", kycProvider: "sandbox", country: "GH" } });
    const account = await accountRow(db, org.orgId, { lifecycle: "bound", phone, phoneVerifiedAt: new Date() });
    await db.accountBinding.create({
      data: { orgId: org.orgId, accountId: account.id, personId: person.id, bindingVcHash: "x", credential: {}, issuerKeyId: "k" },
    });
    const start = await api.post("/v1/phone/otp/start", { phone });
    const confirm = await api.post("/v1/phone/otp/confirm", { challengeId: start.body.challengeId, code: await smsCode(db, phone) });
    expect(confirm.body).toMatchObject({ personDid: `did:web:localhost%3A3000:people:${person.id}`, softIdentity: true });

    // A revoked binding, or a person who is not approved, names nobody.
    await db.accountBinding.updateMany({ where: { accountId: account.id }, data: { revokedAt: new Date() } });
    const again = await api.post("/v1/phone/otp/start", { phone });
    const unbound = await api.post("/v1/phone/otp/confirm", { challengeId: again.body.challengeId, code: await smsCode(db, phone) });
    expect(unbound.body).toMatchObject({ personDid: null, softIdentity: false });
  });
});
