import { describe, expect, it } from "vitest";
import { verifyCredentialWithDidDocument } from "@/server/crypto/verify-credential";
import { sandboxCallback, signSandboxBody } from "@/server/providers/kyc/sandbox";
import { walletKey, walletSign } from "@/server/testing/factories";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { verifyWithDigitalBazaar } from "@/server/testing/independent-vc-verifier";
import { applicantOf, approvedPerson } from "@/server/testing/kyc-flow";
import { orgFootprint } from "@/server/testing/security-suite";

type Api = ReturnType<typeof client>;

async function setup(opts: { plan?: "builder" | "growth" | "institutional" } = {}) {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: opts.plan ?? "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

async function boundReadyAccount(url: string, api: Api) {
  const { personDid, createToken } = await approvedPerson(url, api);
  const wallet = walletKey();
  const created = await api.post("/v1/accounts/free", { ownerPublicKey: wallet.publicKey, kycCreateToken: createToken, personDid });
  expect(created.status, created.text).toBe(201);
  return { personDid, wallet, accountDid: created.body.accountDid as string };
}

describe("the whole path: person-first KYC → create → bind → credential → unlock", () => {
  it("binds an approved person with a wallet signature, issues a verifiable credential and unlocks", async () => {
    const { url, db, org, api } = await setup();
    const { personDid, createToken, started } = await approvedPerson(url, api);
    expect(started.verificationUrl).toMatch(/^http:\/\/localhost:3000\/identity\/sandbox\/sbx_/);
    expect(started.provider).toBe("sandbox");
    // Polling again hands back the same live token rather than minting more.
    const again = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`);
    expect(again.body.createToken).toBe(createToken);
    expect(again.body).toMatchObject({
      status: "approved",
      level: "basic-kyc",
      provider: "sandbox",
      country: "GH",
      applicantIdHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const personId = personDid.split(":").pop()!;
    const didDoc = await call(url, "GET", `/people/${personId}/did.json`);
    expect(didDoc.body.kycStatus).toBe("approved");

    const wallet = walletKey();
    const created = await api.post("/v1/accounts/free", { ownerPublicKey: wallet.publicKey, kycCreateToken: createToken, personDid });
    expect(created.status, created.text).toBe(201);
    const accountDid = created.body.accountDid;

    const challenge = await api.post("/v1/bind/challenge", { accountDid, personDid });
    expect(challenge.status, challenge.text).toBe(200);
    expect(challenge.body.payloadToSign).toContain(`Account: ${accountDid}`);
    expect(challenge.body.payloadToSign).toContain(`Subject: ${personDid}`);
    const confirmed = await api.post("/v1/bind/confirm", {
      accountDid,
      personDid,
      nonce: challenge.body.nonce,
      signature: walletSign(wallet.privateKey, challenge.body.payloadToSign),
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({
      bound: true,
      accountDid,
      personDid,
      lifecycle: "bound",
      bindingVcHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const issuerDoc = (await call(url, "GET", "/.well-known/did.json")).body;
    const credential = confirmed.body.credential;
    expect(credential.credentialSubject).toEqual({ id: personDid, account: accountDid, kycLevel: "basic-kyc" });
    expect(verifyCredentialWithDidDocument(credential, issuerDoc)).toMatchObject({ verified: true });
    expect((await verifyWithDigitalBazaar(credential, issuerDoc)).verified).toBe(true);

    const account = await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`);
    expect(account.body.lifecycle).toBe("bound");
    expect(account.body.bindings).toEqual([expect.objectContaining({ personDid, bindingVcHash: confirmed.body.bindingVcHash })]);
    const stored = await db.accountBinding.findFirstOrThrow({ where: { orgId: org.orgId } });
    expect(stored.credential).toEqual(credential);

    const unlocked = await api.post("/v1/accounts/unlock", { accountDid });
    expect(unlocked.status, unlocked.text).toBe(200);
    expect(unlocked.body.lifecycle).toBe("unlocked");
    const chainAccount = await db.simChainAccount.findUniqueOrThrow({ where: { name: accountDid.split(":").pop()! } });
    expect(chainAccount.ownerCosigner).toBeNull();
    expect(chainAccount.ownerKeys).toEqual([wallet.publicKey]);

    const events = await db.outboxEvent.findMany({ where: { orgId: org.orgId }, orderBy: { createdAt: "asc" } });
    expect(events.map((e) => [e.event, e.payload])).toEqual([
      ["kyc.approved", { personDid, level: "basic-kyc" }],
      ["account.created", { accountDid, lifecycle: "provisional" }],
      ["identity.bound", { accountDid, personDid, bindingVcHash: confirmed.body.bindingVcHash }],
      ["account.unlocked", { accountDid }],
    ]);
    const actions = (await db.auditEntry.findMany({ where: { orgId: org.orgId }, orderBy: { seq: "asc" } })).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(["kyc.started", "kyc.approved", "account.created", "identity.bound", "account.unlocked"]),
    );
    expect((await api.post("/v1/compliance/audit/verify")).body.valid).toBe(true);
  });
});

describe("KYC start and status", () => {
  it("honours a redirect only under /identity on the public host and ignores any other", async () => {
    const { api } = await setup();
    const cases: Array<[string, string | null]> = [
      ["http://localhost:3000/identity/done?x=1", "http://localhost:3000/identity/done?x=1"],
      ["http://localhost:3000/identity", "http://localhost:3000/identity"],
      ["http://localhost:3000/identityx", null],
      ["http://localhost:3000/identity/../admin", null],
      ["https://localhost:3000/identity/done", null],
      ["http://evil.example/identity/done", null],
      ["http://user:pw@localhost:3000/identity/done", null],
      ["javascript:alert(1)", null],
      ["/identity/done", null],
    ];
    for (const [given, honoured] of cases) {
      const res = await api.post("/v1/kyc/start", { redirectUrl: given });
      expect(res.status, given).toBe(200);
      expect(res.body.redirectUrl, given).toBe(honoured);
    }
  });

  it("answers 404 for another organization's person and for a DID that is not ours", async () => {
    const { url, api } = await setup();
    const other = await createTestOrg();
    const started = await client(url, other.apiKey).post("/v1/kyc/start", {});
    expect((await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(started.body.personDid)}`)).status).toBe(404);
    expect(
      (await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(`did:web:other.example:people:${crypto.randomUUID()}`)}`)).status,
    ).toBe(404);
  });

  it("spends the per-IP KYC-start budget: the 21st start in an hour from one address is 429, with Retry-After", async () => {
    const { api } = await setup();
    for (let i = 0; i < 20; i++) expect((await api.post("/v1/kyc/start", {})).status).toBe(200);
    const refused = await api.post("/v1/kyc/start", {});
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("spends the organization's budget of 100 starts an hour", async () => {
    const { db, org, api } = await setup();
    const windowStart = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    await db.rateLimitWindow.create({
      data: { bucket: `kyc-start:org:${org.orgId}`, windowStart, count: 100, expiresAt: new Date(windowStart.getTime() + 3_600_000) },
    });
    const refused = await api.post("/v1/kyc/start", {});
    expect(refused.status).toBe(429);
    expect(await db.person.count({ where: { orgId: org.orgId } })).toBe(0);
  });

  it("replays an idempotent start instead of starting twice", async () => {
    const { db, org, api } = await setup();
    const headers = { "idempotency-key": `kyc-${crypto.randomUUID()}` };
    const a = await api.post("/v1/kyc/start", {}, { headers });
    const b = await api.post("/v1/kyc/start", {}, { headers });
    expect(b.body).toEqual(a.body);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(await db.kycSession.count({ where: { orgId: org.orgId } })).toBe(1);
  });

  it("moves a person through retry and rejection; a rejected person cannot start again for the account", async () => {
    const { url, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const personDid = started.body.personDid;
    const retry = await api.post("/v1/sandbox/kyc/complete", { personDid, outcome: "retry" });
    expect(retry.body.status).toBe("retry");
    const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}&refresh=1`);
    expect(status.body.status).toBe("retry");
    expect(status.body.createToken).toBeUndefined();
    const rejected = await call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantOf(started.body.verificationUrl)}`, {
      body: { outcome: "rejected" },
    });
    expect(rejected.body.status).toBe("rejected");
    // Final: a later approval of the same applicant changes nothing.
    const late = await api.post("/v1/sandbox/kyc/complete", { personDid, outcome: "approved" });
    expect(late.body.status).toBe("rejected");
  });
});

describe("screening at approval", () => {
  it("a PEP identity is approved with the PEP flag, a high-priority case and an aml.sanctions_hit event", async () => {
    const { url, db, org, api } = await setup();
    const { personDid } = await approvedPerson(url, api, "pep");
    const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`);
    expect(status.body).toMatchObject({ status: "approved", pepFlag: true, sanctionsFlag: false });
    expect(status.body.riskScore).toBeGreaterThan(0);
    const cases = await db.amlCase.findMany({ where: { orgId: org.orgId, subjectDid: personDid } });
    expect(cases).toEqual([expect.objectContaining({ status: "open", priority: "high" })]);
    const hit = await db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } });
    expect(hit.payload).toEqual({ personDid, severity: "high" });
    const result = await db.screeningResult.findFirstOrThrow({ where: { orgId: org.orgId, subjectRef: personDid } });
    expect(result.pepHit).toBe(true);
  });

  it("a sanctioned identity is rejected with the sanctions flag and a critical case", async () => {
    const { db, org, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const done = await api.post("/v1/sandbox/kyc/complete", { personDid: started.body.personDid, outcome: "sanctions" });
    expect(done.body.status).toBe("rejected");
    const person = await db.person.findUniqueOrThrow({ where: { id: started.body.personDid.split(":").pop() } });
    expect(person.sanctionsFlag).toBe(true);
    expect(await db.amlCase.findFirstOrThrow({ where: { orgId: org.orgId, subjectDid: started.body.personDid } })).toMatchObject({
      priority: "critical",
      status: "open",
    });
    const hit = await db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } });
    expect(hit.payload).toEqual({ personDid: started.body.personDid, severity: "critical" });
  });

  it("an approved person whose sanctions flag is up cannot be bound; the refusal is audited", async () => {
    const { url, db, org, api } = await setup();
    const s = await boundReadyAccount(url, api);
    await db.person.update({ where: { id: s.personDid.split(":").pop()! }, data: { sanctionsFlag: true } });
    const challenge = await api.post("/v1/bind/challenge", { accountDid: s.accountDid, personDid: s.personDid });
    const res = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: challenge.body.nonce,
      signature: walletSign(s.wallet.privateKey, challenge.body.payloadToSign),
    });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("aml_hold");
    expect(await db.accountBinding.count({ where: { orgId: org.orgId } })).toBe(0);
    expect((await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId }, orderBy: { seq: "desc" } })).data).toMatchObject({
      reason: "aml_hold",
    });
  });
});

describe("provider callbacks", () => {
  it("refuses a forged callback with 401 and writes nothing", async () => {
    const { url, db, org, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const { rawBody } = sandboxCallback({
      applicantId: applicantOf(started.body.verificationUrl),
      externalId: started.body.personDid.split(":").pop(),
      outcome: "approved",
    });
    const before = await orgFootprint(db, org.orgId);
    const events = await db.providerEvent.count();
    const forged = await call(url, "POST", "/v1/kyc/callbacks/sandbox", {
      rawBody: rawBody.toString(),
      headers: { "x-payload-digest": "0".repeat(64) },
    });
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe("UNAUTHORIZED");
    const unsigned = await call(url, "POST", "/v1/kyc/callbacks/sandbox", { rawBody: rawBody.toString() });
    expect(unsigned.status).toBe(401);
    // One byte changed after signing.
    const tampered = rawBody.toString().replace('"approved"', '"approvee"');
    const resigned = await call(url, "POST", "/v1/kyc/callbacks/sandbox", {
      rawBody: tampered,
      headers: { "x-payload-digest": signSandboxBody(rawBody) },
    });
    expect(resigned.status).toBe(401);
    expect(await orgFootprint(db, org.orgId)).toEqual(before);
    expect(await db.providerEvent.count()).toBe(events);
  });

  it("has no callback endpoint for a provider this deployment does not use", async () => {
    const { url } = await testServer();
    const res = await call(url, "POST", "/v1/kyc/callbacks/sumsub", { body: { type: "applicantReviewed" } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  it("applies a redelivered event once", async () => {
    const { url, db, org, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const cb = sandboxCallback({
      applicantId: applicantOf(started.body.verificationUrl),
      externalId: started.body.personDid.split(":").pop(),
      outcome: "approved",
    });
    const headers = Object.fromEntries(cb.headers);
    const first = await call(url, "POST", "/v1/kyc/callbacks/sandbox", { rawBody: cb.rawBody.toString(), headers });
    expect(first.body).toEqual({ received: true, duplicate: false });
    const audit = await db.auditEntry.count({ where: { orgId: org.orgId } });
    const second = await call(url, "POST", "/v1/kyc/callbacks/sandbox", { rawBody: cb.rawBody.toString(), headers });
    expect(second.body).toEqual({ received: true, duplicate: true });
    expect(await db.auditEntry.count({ where: { orgId: org.orgId } })).toBe(audit);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "kyc.approved" } })).toBe(1);
  });

  it("ignores a signed review of an applicant the person was never sent to", async () => {
    const { url, db, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const personId = started.body.personDid.split(":").pop();
    const cb = sandboxCallback({ applicantId: "sbx_notthisapplicant000", externalId: personId, outcome: "approved" });
    const res = await call(url, "POST", "/v1/kyc/callbacks/sandbox", {
      rawBody: cb.rawBody.toString(),
      headers: Object.fromEntries(cb.headers),
    });
    expect(res.status).toBe(200);
    expect((await db.person.findUniqueOrThrow({ where: { id: personId } })).kycStatus).toBe("pending");
  });
});

describe("KYB", () => {
  it("verifies the organization as a legal entity and shows it in its DID document", async () => {
    const { url, org, api } = await setup();
    const bad = await api.post("/v1/kyb/start", {
      legalName: "Acme",
      registrationNumber: "x",
      country: "ZZ",
      address: { line1: "1 Main St", city: "Accra", country: "GH" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(["body.country", "body.registrationNumber"]),
    );
    const started = await api.post("/v1/kyb/start", {
      legalName: "Acme Ghana Ltd",
      registrationNumber: "CS-123457",
      country: "GH",
      address: { line1: "1 Independence Ave", city: "Accra", country: "GH" },
    });
    expect(started.status, started.text).toBe(200);
    expect(started.body).toMatchObject({
      kybStatus: "approved",
      provider: "sandbox",
      organizationDid: expect.stringContaining(`:orgs:${org.orgId}`),
    });
    expect((await call(url, "GET", `/orgs/${org.orgId}/did.json`)).body.kybStatus).toBe("approved");
    const list = await api.get("/v1/admin/organizations");
    expect(list.body.organization.kybStatus).toBe("approved");
    expect(list.body.businesses).toEqual([
      expect.objectContaining({ legalName: "Acme Ghana Ltd", registrationNumber: "CS-123457", status: "approved" }),
    ]);
    expect(
      (
        await api.post("/v1/kyb/start", {
          legalName: "Acme",
          registrationNumber: "CS-1",
          country: "GH",
          address: { line1: "x", city: "y", country: "GH" },
        })
      ).status,
    ).toBe(409);
  });

  it("a rejected registration leaves the organization rejected", async () => {
    const { url, org, api } = await setup();
    const started = await api.post("/v1/kyb/start", {
      legalName: "Nowhere Ltd",
      registrationNumber: "CS-000010",
      country: "GH",
      address: { line1: "x", city: "Accra", country: "GH" },
    });
    expect(started.body.kybStatus).toBe("rejected");
    expect((await call(url, "GET", `/orgs/${org.orgId}/did.json`)).body.kybStatus).toBe("rejected");
  });
});

describe("bind refusals", () => {
  async function challengeFor(url: string, api: Api) {
    const subject = await boundReadyAccount(url, api);
    const challenge = await api.post("/v1/bind/challenge", { accountDid: subject.accountDid, personDid: subject.personDid });
    return { ...subject, challenge: challenge.body as { nonce: string; payloadToSign: string } };
  }

  it("refuses a signature by another key with 400 INVALID_SIGNATURE and writes nothing; the nonce stays usable", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    const before = await orgFootprint(db, org.orgId);
    const wrong = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(walletKey().privateKey, s.challenge.payloadToSign),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe("INVALID_SIGNATURE");
    expect(await orgFootprint(db, org.orgId)).toEqual(before);
    const right = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    });
    expect(right.status, right.text).toBe(200);
  });

  it("refuses an unapproved person with 409 and writes nothing", async () => {
    const { url, db, org, api } = await setup();
    const s = await boundReadyAccount(url, api);
    const pending = await api.post("/v1/kyc/start", {});
    const before = await orgFootprint(db, org.orgId);
    const challenge = await api.post("/v1/bind/challenge", { accountDid: s.accountDid, personDid: pending.body.personDid });
    expect(challenge.status).toBe(409);
    expect(challenge.body.error.details.reason).toBe("person_not_approved");
    expect(await orgFootprint(db, org.orgId)).toEqual(before);
    // A nonce issued while approved, confirmed after the status changed, is refused just the same.
    const ok = await api.post("/v1/bind/challenge", { accountDid: s.accountDid, personDid: s.personDid });
    const personId = s.personDid.split(":").pop()!;
    await db.person.update({ where: { id: personId }, data: { kycStatus: "in_review" } });
    const mid = await orgFootprint(db, org.orgId);
    const refused = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: ok.body.nonce,
      signature: walletSign(s.wallet.privateKey, ok.body.payloadToSign),
    });
    expect(refused.status).toBe(409);
    expect(await orgFootprint(db, org.orgId)).toEqual(mid);
  });

  it("refuses a reused nonce with 409 nonce_used and writes nothing more", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    const body = {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    };
    expect((await api.post("/v1/bind/confirm", body)).status).toBe(200);
    const before = await orgFootprint(db, org.orgId);
    const again = await api.post("/v1/bind/confirm", body);
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe("nonce_used");
    expect(await orgFootprint(db, org.orgId)).toEqual(before);
  });

  it("binds once when 20 confirms of one nonce arrive together", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    const body = {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    };
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.post("/v1/bind/confirm", body)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    expect(await db.accountBinding.count({ where: { orgId: org.orgId } })).toBe(1);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "identity.bound" } })).toBe(1);
  });

  it("applies the country policy at bind: a refusal is audited and binds nothing", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    expect((await api.put("/v1/admin/country-policy", { blockedCountries: ["GH"] })).status).toBe(200);
    const res = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("country_not_allowed");
    expect(await db.accountBinding.count({ where: { orgId: org.orgId } })).toBe(0);
    const last = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId }, orderBy: { seq: "desc" } });
    expect(last.action).toBe("bind.refused");
    expect(last.data).toMatchObject({ reason: "country_policy", rule: 1, country: "GH" });
    // Lifting the block lets the same nonce through: the refusal did not spend it.
    expect((await api.put("/v1/admin/country-policy", { blockedCountries: [] })).status).toBe(200);
    const ok = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    });
    expect(ok.status, ok.text).toBe(200);
  });
});

/** The account's owner signs the bind challenge: the person is bound to the account. */
async function bind(api: Api, s: Awaited<ReturnType<typeof boundReadyAccount>>) {
  const challenge = await api.post("/v1/bind/challenge", { accountDid: s.accountDid, personDid: s.personDid });
  const confirmed = await api.post("/v1/bind/confirm", {
    accountDid: s.accountDid,
    personDid: s.personDid,
    nonce: challenge.body.nonce,
    signature: walletSign(s.wallet.privateKey, challenge.body.payloadToSign),
  });
  expect(confirmed.status, confirmed.text).toBe(200);
}

describe("unlock", () => {
  it("is 409 unless the account is bound or unlocked, and safe to retry after a crash between chain and commit", async () => {
    const { url, db, api, org } = await setup();
    const s = await boundReadyAccount(url, api);
    const early = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(early.status).toBe(409);
    expect(early.body.error.details.reason).toBe("not_bound");
    await bind(api, s);
    // The chain already dropped the cosigner, but our commit never happened.
    await db.simChainAccount.update({ where: { name: s.accountDid.split(":").pop()! }, data: { ownerCosigner: null } });
    const retried = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({ lifecycle: "unlocked", transactionId: null });
    // A retry after the answer was lost gets the same answer, and nothing happens twice.
    const events = await db.outboxEvent.count({ where: { orgId: org.orgId, event: "account.unlocked" } });
    const twice = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(twice.status, twice.text).toBe(200);
    expect(twice.body).toEqual(retried.body);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "account.unlocked" } })).toBe(events);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "account.unlocked", subject: s.accountDid } })).toBe(1);
  });

  it("a retry of a completed unlock answers with the original transaction id", async () => {
    const { url, api } = await setup();
    const s = await boundReadyAccount(url, api);
    await bind(api, s);
    const first = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(first.status, first.text).toBe(200);
    expect(first.body.transactionId).toEqual(expect.any(String));
    const again = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });
});
