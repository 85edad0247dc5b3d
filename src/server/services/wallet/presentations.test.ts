import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { open } from "../../crypto/secret-box";
import { screeningHit } from "../../testing/aml";
import { type ApiResponse, client, createTestOrg, testServer } from "../../testing/harness";
import { approvedPerson, boundAccount } from "../../testing/kyc-flow";
import { type Holder, newHolder, present, receiveCredential, resolveRequest } from "../../testing/wallet-holder";

/**
 * Presentations (OpenID4VP 1.0, DCQL, direct_post) with a wallet built from the published
 * libraries (testing/wallet-holder.ts): organization A issued the credential, organization B asks
 * for two of its claims. What the wallet discloses, what B reads, what each audit trail holds.
 */
let url: string;
let apiA: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  url = (await testServer()).url;
  const a = await createTestOrg({ name: `Wallet issuer A ${process.pid}` });
  const b = await createTestOrg({ name: `Relying party B ${process.pid}` });
  apiA = client(url, a.apiKey);
  apiB = client(url, b.apiKey);
  orgA = a.orgId;
  orgB = b.orgId;
});
afterAll(() => undefined);

async function requestOf(api: ReturnType<typeof client>, body: Record<string, unknown>) {
  const created = await api.post("/v1/wallet/presentations", body);
  expect(created.status, created.text).toBe(201);
  return created.body as { presentationId: string; requestUri: string; consentPageUrl: string; status: string };
}

async function outcome(api: ReturnType<typeof client>, id: string) {
  const got: ApiResponse = await api.get(`/v1/wallet/presentations/${id}`);
  expect(got.status, got.text).toBe(200);
  return got.body as { status: string; disclosed: Record<string, unknown> | null; reuse: boolean; refusal: string | null };
}

async function credentialFromA(holder: Holder, withAccount = false) {
  if (withAccount) {
    const { personDid, accountDid } = await boundAccount(url, apiA);
    return { personDid, accountDid, credential: await receiveCredential(url, apiA, holder, { personDid, accountDid }) };
  }
  const { personDid } = await approvedPerson(url, apiA);
  return { personDid, accountDid: null, credential: await receiveCredential(url, apiA, holder, { personDid }) };
}

describe("OpenID4VP presentations of the wallet credential", () => {
  it("a DCQL request for age_over_18 and kyc_level gets exactly those two, reused from A with consent in both trails, billed to B as a reuse", async () => {
    const { db } = await testServer();
    const holder = await newHolder();
    const { personDid, credential } = await credentialFromA(holder);
    const req = await requestOf(apiB, { claims: ["age_over_18", "kyc_level"], purpose: "Adults only" });
    expect(req.status).toBe("pending");
    expect(req.requestUri).toMatch(/^openid4vp:\/\/\?client_id=decentralized_identifier%3Adid%3Aweb%3A/);

    const wallet = await resolveRequest(url, req.requestUri);
    const payload = wallet.resolved.authorizationRequestPayload as Record<string, unknown>;
    expect(wallet.resolved.client.prefix).toBe("decentralized_identifier");
    expect(payload.client_metadata).toMatchObject({ client_name: `Relying party B ${process.pid}` });
    const res = await present(wallet, holder, credential);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ redirect_uri: req.consentPageUrl });

    const got = await outcome(apiB, req.presentationId);
    expect(got.status).toBe("verified");
    expect(got.reuse).toBe(true);
    expect(Object.keys(got.disclosed!).sort()).toEqual(["age_over_18", "kyc_level"]);
    const level = (await apiA.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`)).body.level;
    expect(got.disclosed).toEqual({ age_over_18: true, kyc_level: level });

    // Sealed at rest; the clear values are only in B's answer.
    const row = await db.walletPresentation.findUniqueOrThrow({ where: { id: req.presentationId } });
    expect(row.resultSealed).not.toContain("age_over_18");
    expect(JSON.parse(open(row.resultSealed!))).toEqual(got.disclosed);

    // The consent in both organizations' audit trails: which claims, to whom; never the values.
    const inA = await db.auditEntry.findFirstOrThrow({
      where: { orgId: orgA, action: "wallet.reuse_consented" },
      orderBy: { seq: "desc" },
    });
    expect(inA.subject).toBe(personDid);
    expect(inA.data).toMatchObject({
      presentationId: req.presentationId,
      recipientOrganizationId: orgB,
      claims: ["age_over_18", "kyc_level"],
    });
    const inB = await db.auditEntry.findFirstOrThrow({
      where: { orgId: orgB, action: "wallet.presentation_verified", subject: req.presentationId },
    });
    expect(inB.data).toMatchObject({ reuse: true, sourceOrganizationId: orgA, consent: "wallet_presentation" });
    expect(JSON.stringify(inA.data) + JSON.stringify(inB.data)).not.toContain(level);
    // In words, as the console's activity shows it.
    const { describeAudit } = await import("../audit");
    const [wordsA] = await describeAudit(db, orgA, [inA]);
    expect(wordsA!.summary).toMatch(/consented to share age over 18 and kyc level with Relying party B/);
    const [wordsB] = await describeAudit(db, orgB, [inB]);
    expect(wordsB!.summary).toMatch(/verified a wallet presentation of age over 18 and kyc level, reused from another organization/);

    // B paid a reuse, not a KYC verification.
    const month = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
    const reuses = await db.usageDay.findUnique({ where: { bucket_day: { bucket: `reuses:${orgB}`, day: month } } });
    expect(reuses?.count).toBe(1);
    const kycB = await db.usageDay.findUnique({ where: { bucket_day: { bucket: `verifications:${orgB}`, day: month } } });
    expect(kycB?.count ?? 0).toBe(0);
    expect((await apiB.get("/v1/billing/usage")).body.meters).toMatchObject({ reusesThisMonth: 1, verificationsThisMonth: 0 });

    // Answered once: the same response again is refused and changes nothing.
    const again = await present(await resolveRequest(url, req.requestUri).catch(() => wallet), holder, credential);
    expect(again.status).toBe(400);
    expect((await outcome(apiB, req.presentationId)).status).toBe("verified");
  });

  it("refuses a wrong nonce, a wrong audience, a foreign holder key and an undisclosed claim, each with its reason", async () => {
    const holder = await newHolder();
    const { credential } = await credentialFromA(holder);
    const cases: [string, Parameters<typeof present>[3]][] = [
      ["nonce_mismatch", { kb: { nonce: "not-the-request-nonce" } }],
      ["audience_mismatch", { kb: { aud: "decentralized_identifier:did:web:elsewhere.example" } }],
      ["holder_binding", { signer: await newHolder() }],
      ["claims_missing", { disclose: ["kyc_level"] }],
    ];
    for (const [refusal, opts] of cases) {
      const req = await requestOf(apiB, { claims: ["age_over_18", "kyc_level"] });
      const res = await present(await resolveRequest(url, req.requestUri), holder, credential, opts);
      expect(res.status, refusal).toBe(400);
      expect(await res.json()).toMatchObject({ error: "access_denied" });
      const got = await outcome(apiB, req.presentationId);
      expect(got).toMatchObject({ status: "refused", refusal, disclosed: null });
    }
  });

  it("revoking the binding in A makes B's next verification fail (status list), and the request object is gone once answered", async () => {
    const { db } = await testServer();
    const holder = await newHolder();
    const { accountDid, credential } = await credentialFromA(holder, true);
    const first = await requestOf(apiB, { claims: ["kyc_level"], accountDid: undefined });
    expect((await present(await resolveRequest(url, first.requestUri), holder, credential)).status).toBe(200);
    expect((await fetch(`${url}/oid4vp/requests/${first.presentationId}`)).status).toBe(404);

    const binding = await db.accountBinding.findFirstOrThrow({ where: { account: { did: accountDid! } } });
    const revoked = await apiA.post(`/v1/bindings/${binding.id}/revoke`, { reason: "The account was sold" });
    expect(revoked.status, revoked.text).toBe(200);

    const next = await requestOf(apiB, { claims: ["kyc_level"] });
    const res = await present(await resolveRequest(url, next.requestUri), holder, credential);
    expect(res.status).toBe(400);
    expect(await outcome(apiB, next.presentationId)).toMatchObject({ status: "refused", refusal: "revoked" });
  });

  it("a person flagged by sanctions screening after issuance is refused as suspended, which the status list cannot say", async () => {
    const { db } = await testServer();
    const holder = await newHolder();
    const { personDid, credential } = await credentialFromA(holder);
    const before = await requestOf(apiB, { claims: ["kyc_level"] });
    expect((await present(await resolveRequest(url, before.requestUri), holder, credential)).status).toBe(200);

    await screeningHit(db, orgA, personDid);
    const after = await requestOf(apiB, { claims: ["kyc_level"] });
    expect((await present(await resolveRequest(url, after.requestUri), holder, credential)).status).toBe(400);
    expect(await outcome(apiB, after.presentationId)).toMatchObject({ status: "refused", refusal: "suspended", disclosed: null });
  });

  it("the verified country is disclosable only when the issuing organization's policy says so", async () => {
    const holder = await newHolder();
    const off = await credentialFromA(holder);
    const denied = await requestOf(apiB, { claims: ["country"] });
    expect((await present(await resolveRequest(url, denied.requestUri), holder, off.credential, { disclose: ["country"] })).status).toBe(
      400,
    );
    expect(await outcome(apiB, denied.presentationId)).toMatchObject({ status: "refused", refusal: "claims_missing" });

    const policy = await apiA.patch("/v1/admin/tenant/policy", { walletCredentialCountry: true });
    expect(policy.status, policy.text).toBe(200);
    expect(policy.body.walletCredentialCountry).toBe(true);
    const on = await credentialFromA(holder);
    const asked = await requestOf(apiB, { claims: ["country"] });
    expect((await present(await resolveRequest(url, asked.requestUri), holder, on.credential)).status).toBe(200);
    expect(await outcome(apiB, asked.presentationId)).toMatchObject({ status: "verified", disclosed: { country: "GH" } });
    await apiA.patch("/v1/admin/tenant/policy", { walletCredentialCountry: false });
  });

  it("a declined request sends nothing and cannot be answered afterwards", async () => {
    const holder = await newHolder();
    const { credential } = await credentialFromA(holder);
    const req = await requestOf(apiB, { claims: ["age_over_18"] });
    const wallet = await resolveRequest(url, req.requestUri);
    const declined = await fetch(`${url}/oid4vp/requests/${req.presentationId}/decline`, { method: "POST" });
    expect(declined.status).toBe(200);
    expect((await fetch(`${url}/oid4vp/requests/${req.presentationId}/decline`, { method: "POST" })).status).toBe(200);
    expect((await present(wallet, holder, credential)).status).toBe(400);
    expect(await outcome(apiB, req.presentationId)).toMatchObject({ status: "declined", disclosed: null, reuse: false });
  });

  it("another organization cannot read B's request, and a bad request is refused in the envelope", async () => {
    const req = await requestOf(apiB, { claims: ["kyc_level"] });
    expect((await apiA.get(`/v1/wallet/presentations/${req.presentationId}`)).status).toBe(404);
    const bad = await apiB.post("/v1/wallet/presentations", { claims: ["name"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    const twice = await apiB.post("/v1/wallet/presentations", { claims: ["kyc_level", "kyc_level"] });
    expect(twice.status).toBe(400);
  });
});
