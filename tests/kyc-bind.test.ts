import { describe, expect, it } from "vitest";
import { verifyCredentialWithDidDocument } from "@/server/crypto/verify-credential";
import { walletKey, walletSign } from "@/server/testing/factories";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { verifyWithDigitalBazaar } from "@/server/testing/independent-vc-verifier";
import { approvedPerson } from "@/server/testing/kyc-flow";

// A tenant's whole path across the domains (kyc, accounts, credentials, audit, events); each
// step's own rules are tested beside its domain (services/kyc, services/accounts).

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
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
    expect(credential.credentialSubject).toEqual({
      id: personDid,
      account: accountDid,
      kycLevel: "basic-kyc",
      pairwiseId: expect.stringMatching(/^pw_[0-9a-f]{40}$/),
    });
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
