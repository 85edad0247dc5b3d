import { describe, expect, it } from "vitest";
import { openContacts } from "../../crypto/account-box";
import { approvedPersonWithToken, uniqueName, walletKey } from "../../testing/factories";
import { client, createTestOrg, testServer } from "../../testing/harness";

async function setup(policy: Record<string, boolean> = {}) {
  const { url, db } = await testServer();
  const org = await createTestOrg();
  if (Object.keys(policy).length) await db.organization.update({ where: { id: org.orgId }, data: policy });
  return { db, org, api: client(url, org.apiKey) };
}

async function emailProof(api: ReturnType<typeof client>, email: string) {
  const start = await api.post("/v1/email/otp/start", { email });
  expect(start.status).toBe(200);
  const confirm = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
  expect(confirm.status).toBe(200);
  return confirm.body.emailProofToken as string;
}

async function counts(db: any, orgId: string) {
  const [accounts, events, audit] = await Promise.all([
    db.account.count({ where: { orgId } }),
    db.outboxEvent.count({ where: { orgId } }),
    db.auditEntry.count({ where: { orgId, action: "account.created" } }),
  ]);
  return { accounts, events, audit };
}

describe("POST /v1/accounts/free", () => {
  it("creates a provisional account on the simulated chain with its event and audit entry", async () => {
    const { db, org, api } = await setup();
    const key = walletKey();
    const name = uniqueName();
    const res = await api.post("/v1/accounts/free", { ownerPublicKey: key.publicKey, preferredName: name });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      accountDid: `did:antelope:sandbox:${name}`,
      name,
      lifecycle: "provisional",
      ownerPublicKey: key.publicKey,
      activePublicKey: key.publicKey,
    });
    const chainAccount = (await db.simChainAccount.findUnique({ where: { name } }))!;
    expect(chainAccount.ownerKeys).toEqual([key.publicKey]);
    expect(chainAccount.ownerCosigner).toBeTruthy();
    const event = (await db.outboxEvent.findFirst({ where: { orgId: org.orgId, event: "account.created" } }))!;
    expect(event.payload).toEqual({ accountDid: res.body.accountDid, lifecycle: "provisional" });
    expect(await counts(db, org.orgId)).toEqual({ accounts: 1, events: 1, audit: 1 });
  });

  it("accepts legacy EOS and R1 keys, generates a name when none is given, and rejects junk keys and names", async () => {
    const { api } = await setup();
    const legacy = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().legacy, activePublicKey: walletKey("R1").publicKey });
    expect(legacy.status).toBe(201);
    expect(legacy.body.name).toMatch(/^[a-z1-5]{12}$/);
    expect(legacy.body.ownerPublicKey).toMatch(/^PUB_K1_/);
    const junk = await api.post("/v1/accounts/free", { ownerPublicKey: "EOSnotakey" });
    expect(junk.status).toBe(400);
    expect(junk.body.error.details.issues[0].path).toBe("body.ownerPublicKey");
    for (const bad of ["UPPER", "toolongname123", "trailing.", "has0zero"]) {
      const r = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, preferredName: bad });
      expect(r.status, bad).toBe(400);
    }
  });

  it("answers 409 name_taken for a taken name and hands the kycCreateToken back unspent", async () => {
    const { db, org, api } = await setup({ requireKycBeforeFreeCreate: true });
    const name = uniqueName();
    const first = await approvedPersonWithToken(org.orgId);
    expect(
      (await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, preferredName: name, kycCreateToken: first.token }))
        .status,
    ).toBe(201);
    const second = await approvedPersonWithToken(org.orgId);
    const clash = await api.post("/v1/accounts/free", {
      ownerPublicKey: walletKey().publicKey,
      preferredName: name,
      kycCreateToken: second.token,
    });
    expect(clash.status).toBe(409);
    expect(clash.body.error.details).toEqual({ reason: "name_taken", kycCreateToken: second.token });
    expect(await db.kycCreateToken.count({ where: { personId: second.person.id, usedAt: null } })).toBe(1);
    const retry = await api.post("/v1/accounts/free", {
      ownerPublicKey: walletKey().publicKey,
      preferredName: uniqueName(),
      kycCreateToken: second.token,
    });
    expect(retry.status).toBe(201);
    const reuse = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, kycCreateToken: second.token });
    expect(reuse.status).toBe(403);
    expect(reuse.body.error.details.reason).toBe("kyc_required");
  });

  it("enforces the gate matrix: email proof, phone proof and KYC, each alone and together", async () => {
    const cases: Array<{ policy: Record<string, boolean>; missing: string }> = [
      { policy: { requireEmailProofBeforeFreeCreate: true }, missing: "email_not_verified" },
      { policy: { requirePhoneProofBeforeFreeCreate: true }, missing: "phone_not_verified" },
      { policy: { requireKycBeforeFreeCreate: true }, missing: "kyc_required" },
    ];
    for (const c of cases) {
      const { db, org, api } = await setup(c.policy);
      const denied = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey });
      expect(denied.status, c.missing).toBe(403);
      expect(denied.body.error.details.reason).toBe(c.missing);
      expect(await db.account.count({ where: { orgId: org.orgId } })).toBe(0);
    }
    const { db, org, api } = await setup({ requireEmailProofBeforeFreeCreate: true, requireKycBeforeFreeCreate: true });
    const email = `gate-${uniqueName()}@example.test`;
    const proof = await emailProof(api, email);
    const onlyEmail = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, emailProofToken: proof });
    expect(onlyEmail.body.error.details.reason).toBe("kyc_required");
    const { token } = await approvedPersonWithToken(org.orgId);
    const both = await api.post("/v1/accounts/free", {
      ownerPublicKey: walletKey().publicKey,
      emailProofToken: proof,
      kycCreateToken: token,
    });
    expect(both.status).toBe(201);
    expect(both.body.contacts).toMatchObject({ emailVerified: true, email: "g***@example.test" });
    // Stored sealed under the account's data key (contact-sealing.test.ts), opened the same.
    const row = (await db.account.findFirst({ where: { orgId: org.orgId } }))!;
    expect(openContacts(row).email).toBe(email);
  });

  it("refuses a proof token used twice, and an address already on an account", async () => {
    const { api } = await setup({ requireEmailProofBeforeFreeCreate: true });
    const email = `twice-${uniqueName()}@example.test`;
    const proof = await emailProof(api, email);
    expect((await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, emailProofToken: proof })).status).toBe(201);
    const again = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, emailProofToken: proof });
    expect(again.status).toBe(403);
    expect(again.body.error.details.reason).toBe("email_not_verified");
    const start = await api.post("/v1/email/otp/start", { email });
    expect(start.status).toBe(409);
    expect(start.body.error.details.reason).toBe("email_taken");
  });

  it("replays an Idempotency-Key instead of creating a second account", async () => {
    const { db, org, api } = await setup();
    const body = { ownerPublicKey: walletKey().publicKey, preferredName: uniqueName() };
    const headers = { "idempotency-key": `create-${uniqueName()}` };
    const a = await api.post("/v1/accounts/free", body, { headers });
    const b = await api.post("/v1/accounts/free", body, { headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(await db.account.count({ where: { orgId: org.orgId } })).toBe(1);
  });
});

describe("account reads and admin", () => {
  it("reads an account by DID or bare name with masked contacts; another organization's account is 404", async () => {
    const { api } = await setup();
    const created = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, preferredName: uniqueName() });
    const byDid = await api.get(`/v1/accounts/${encodeURIComponent(created.body.accountDid)}`);
    expect(byDid.status).toBe(200);
    expect(byDid.body).toMatchObject({ accountDid: created.body.accountDid, lifecycle: "provisional", bindings: [] });
    expect((await api.get(`/v1/accounts/${created.body.name}`)).body.accountDid).toBe(created.body.accountDid);
    const other = await setup();
    expect((await other.api.get(`/v1/accounts/${encodeURIComponent(created.body.accountDid)}`)).status).toBe(404);
  });

  it("reports name availability: free, taken and invalid", async () => {
    const { api } = await setup();
    const name = uniqueName();
    expect((await api.get(`/v1/accounts/name-available?name=${name}`)).body).toMatchObject({ name, available: true });
    await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, preferredName: name });
    expect((await api.get(`/v1/accounts/name-available?name=${name}`)).body).toMatchObject({ available: false, reason: "TAKEN" });
    expect((await api.get(`/v1/accounts/name-available?name=BAD.`)).body).toMatchObject({ available: false, reason: "INVALID" });
    expect((await api.get(`/v1/accounts/name-available?name=thirteenchars`)).status).toBe(400);
  });

  it("suspends an account with an audit entry and lists the organization's accounts", async () => {
    const { db, org, api } = await setup();
    const created = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey });
    const res = await api.post("/v1/admin/accounts/suspend", { accountDid: created.body.accountDid });
    expect(res.body).toEqual({ accountDid: created.body.accountDid, lifecycle: "suspended", previousLifecycle: "provisional" });
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "account.suspended", subject: created.body.accountDid } })).toBe(
      1,
    );
    const list = await api.get("/v1/admin/accounts");
    expect(list.body.accounts.map((a: any) => a.accountDid)).toEqual([created.body.accountDid]);
    expect(list.body.accounts[0].lifecycle).toBe("suspended");
  });
});
