import { createHash, createPublicKey, randomBytes, verify as verifySignature } from "node:crypto";
import { clientAuthenticationAnonymous, type Jwk } from "@openid4vc/oauth2";
import { type CredentialOfferObject, type IssuerMetadataResult, Openid4vciClient, setGlobalConfig } from "@openid4vc/openid4vci";
import { digest } from "@sd-jwt/crypto-nodejs";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { CompactSign, exportJWK, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { accountReadyToBind, applicantOf, approvedPerson, boundAccount } from "../../testing/kyc-flow";

/**
 * A wallet built from the published libraries only (@openid4vc/openid4vci's client, jose, and
 * @sd-jwt/sd-jwt-vc as a relying party would verify), against the service over real HTTP. The
 * issuer's public origin (BI_PUBLIC_URL) is mapped to the test server, as DNS would map it.
 */
let url: string;
let issuerOrigin: string;
let api: ReturnType<typeof client>;

const mapped = (input: string | URL | Request) => {
  const u = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  return u.origin === issuerOrigin ? `${url}${u.pathname}${u.search}` : u.href;
};
const holderFetch: typeof fetch = (input, init) =>
  input instanceof Request ? fetch(new Request(mapped(input), input), init) : fetch(mapped(input), init);

type HolderKey = { publicJwk: Jwk; privateKey: CryptoKey; alg: "EdDSA" | "ES256" };
async function holderKey(alg: "EdDSA" | "ES256" = "EdDSA"): Promise<HolderKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { publicJwk: (await exportJWK(publicKey)) as Jwk, privateKey, alg };
}

const sign = async (key: HolderKey, header: Record<string, unknown>, payload: Record<string, unknown>) =>
  new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ ...header, alg: key.alg }).sign(key.privateKey);

function wallet(key?: HolderKey) {
  return new Openid4vciClient({
    callbacks: {
      fetch: holderFetch,
      hash: (data, alg) => createHash(alg.replace("-", "")).update(data).digest(),
      generateRandom: (n) => randomBytes(n),
      clientAuthentication: clientAuthenticationAnonymous(),
      signJwt: async (_signer, jwt) => {
        if (!key) throw new Error("no holder key");
        return { jwt: await sign(key, jwt.header, jwt.payload), signerJwk: key.publicJwk };
      },
    },
  });
}

const CONFIG = "AccountBindingSdJwt";

async function offerFor(body: { personDid: string; accountDid?: string }) {
  const res = await api.post("/v1/wallet/offers", body);
  expect(res.status, res.text).toBe(201);
  return res.body as {
    offerId: string;
    credentialOffer: CredentialOfferObject;
    credentialOfferUri: string;
    offerPageUrl: string;
    txCode: string;
    expiresAt: string;
  };
}

const token = (form: Record<string, string>) =>
  fetch(`${url}/oid4vci/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
const preAuthCode = (offer: CredentialOfferObject) =>
  offer.grants?.["urn:ietf:params:oauth:grant-type:pre-authorized_code"]?.["pre-authorized_code"] ?? "";
const redeem = (offer: CredentialOfferObject, txCode: string) =>
  token({ grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code", "pre-authorized_code": preAuthCode(offer), tx_code: txCode });
const wrongCode = (txCode: string) => String((Number(txCode) + 1) % 1_000_000).padStart(6, "0");

const nonce = async () => ((await (await fetch(`${url}/oid4vci/nonce`, { method: "POST" })).json()) as { c_nonce: string }).c_nonce;
const credentialRequest = (accessToken: string, proof: string) =>
  fetch(`${url}/oid4vci/credential`, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({ credential_configuration_id: CONFIG, proofs: { jwt: [proof] } }),
  });
const proofHeader = (key: HolderKey) => ({ typ: "openid4vci-proof+jwt", jwk: key.publicJwk });

/** A relying party's verifier: the issuer's key from its published SD-JWT VC issuer metadata, and the type metadata of vct, over HTTP. */
async function relyingParty(credential: string) {
  const header = JSON.parse(Buffer.from(credential.split(".")[0]!, "base64url").toString()) as { kid: string; alg: string; typ: string };
  const iss = (JSON.parse(Buffer.from(credential.split("~")[0]!.split(".")[1]!, "base64url").toString()) as { iss: string }).iss;
  const meta = (await (await holderFetch(`${new URL(iss).origin}/.well-known/jwt-vc-issuer`)).json()) as {
    issuer: string;
    jwks: { keys: Jwk[] };
  };
  expect(meta.issuer).toBe(iss);
  const jwk = meta.jwks.keys.find((k) => k.kid === header.kid);
  expect(jwk, "the credential's kid is published").toBeDefined();
  const verifier = new SDJwtVcInstance({
    hasher: digest,
    verifier: (data: string, sig: string) =>
      verifySignature(null, Buffer.from(data), createPublicKey({ key: jwk as never, format: "jwk" }), Buffer.from(sig, "base64url")),
    vctFetcher: async (uri: string) => (await holderFetch(uri)).json(),
    // The credential's status list, as the library's own fetcher asks for it (status.test.ts checks revocation).
    statusListFetcher: async (uri: string) => {
      const res = await holderFetch(uri, { headers: { accept: "application/statuslist+jwt" } });
      expect(res.headers.get("content-type")).toBe("application/statuslist+jwt");
      return res.text();
    },
    loadTypeMetadataFormat: true,
  });
  return { header, verified: await verifier.verify(credential) };
}

beforeAll(async () => {
  url = (await testServer()).url;
  const org = await createTestOrg();
  api = client(url, org.apiKey);
  issuerOrigin = new URL(process.env.BI_PUBLIC_URL!).origin;
  // The suite's public origin is http://; the libraries accept it only when told (https in production).
  setGlobalConfig({ allowInsecureUrls: true });
});

describe("wallet credential issuance (OpenID4VCI 1.0 pre-authorized code, SD-JWT VC)", () => {
  it("issues the credential to a wallet built from the published libraries, and a relying party verifies it with the published key", async () => {
    const { personDid, accountDid } = await boundAccount(url, api);
    const offered = await offerFor({ personDid, accountDid });
    expect(offered.txCode).toMatch(/^\d{6}$/);
    expect(offered.credentialOfferUri.startsWith("openid-credential-offer://?credential_offer=")).toBe(true);
    // The hosted page carries the same offer after `#`, which never reaches a server.
    expect(offered.offerPageUrl.startsWith(`${issuerOrigin}/wallet/offer#credential_offer=`)).toBe(true);
    expect(new URL(offered.offerPageUrl).hash.slice(1)).toBe(new URL(offered.credentialOfferUri).search.slice(1));

    const key = await holderKey();
    const holder = wallet(key);
    const credentialOffer = await holder.resolveCredentialOffer(offered.credentialOfferUri);
    expect(credentialOffer).toEqual(offered.credentialOffer);
    const issuerMetadata: IssuerMetadataResult = await holder.resolveIssuerMetadata(credentialOffer.credential_issuer);
    expect(issuerMetadata.originalDraftVersion).toBe("V1");
    expect(issuerMetadata.knownCredentialConfigurations[CONFIG]?.format).toBe("dc+sd-jwt");

    const { accessTokenResponse } = await holder.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      txCode: offered.txCode,
    });
    expect(accessTokenResponse.token_type).toBe("Bearer");
    const { c_nonce } = await holder.requestNonce({ issuerMetadata });
    const { jwt } = await holder.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: CONFIG,
      signer: { method: "jwk", alg: "EdDSA", publicJwk: key.publicJwk },
      nonce: c_nonce,
      issuedAt: new Date(),
    });
    const retrieved = await holder.retrieveCredentials({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      credentialConfigurationId: CONFIG,
      proofs: { jwt: [jwt] },
    });
    const first = retrieved.credentialResponse.credentials?.[0];
    const credential = (typeof first === "object" && "credential" in first ? first.credential : first) as string;
    expect(typeof credential).toBe("string");

    const { header, verified } = await relyingParty(credential);
    expect(header).toMatchObject({ alg: "EdDSA", typ: "dc+sd-jwt" });
    const claims = verified.payload as Record<string, unknown>;
    expect(claims.iss).toBe(credentialOffer.credential_issuer);
    expect(claims.vct).toBe(`${credentialOffer.credential_issuer}/vct/account-binding`);
    expect(verified.typeMetadata?.mergedTypeMetadata.vct).toBe(claims.vct);
    expect(claims.kyc_level).toBe("basic-kyc");
    expect(claims.age_over_18).toBe(true);
    expect(claims.age_over_21).toBe(true);
    expect(claims.nationality_tier).toBe(1);
    expect(claims.account).toBe(accountDid);
    expect(claims.not_sanctioned_at).toEqual(expect.any(Number));
    expect(claims.not_sanctioned_at as number).toBeLessThanOrEqual(claims.iat as number);
    expect((claims.exp as number) - (claims.iat as number)).toBe(365 * 24 * 3600);
    expect(claims.cnf).toEqual({ jwk: key.publicJwk });
    expect(claims.status).toEqual({ status_list: { idx: expect.any(Number), uri: expect.stringContaining("/credentials/status/") } });
    // Every claim of ours is a disclosure, none in the signed payload in clear.
    const signedPayload = JSON.parse(Buffer.from(credential.split("~")[0]!.split(".")[1]!, "base64url").toString());
    for (const c of ["kyc_level", "age_over_18", "account"]) expect(signedPayload).not.toHaveProperty(c);
    // No name, birth date or country anywhere: payload and every disclosure decoded.
    const decoded = credential
      .split("~")
      .flatMap((part) => part.split("."))
      .map((p) => Buffer.from(p, "base64url").toString("utf8"))
      .join(" ");
    for (const secret of ["Alex", "Sample", "1990-01-01", '"GH"', "birth", 'name"']) expect(decoded).not.toContain(secret);

    // One credential per offer: the token is spent.
    const again = await credentialRequest(accessTokenResponse.access_token, jwt);
    expect(again.status).toBe(401);
    expect(again.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
  });

  it("refuses a wrong transaction code, locks the offer after 5, and refuses a replayed or expired pre-authorized code", async () => {
    const { personDid } = await approvedPerson(url, api);
    const locked = await offerFor({ personDid });
    for (let i = 0; i < 5; i++) {
      const res = await redeem(locked.credentialOffer, wrongCode(locked.txCode));
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body).toEqual({ error: "invalid_grant", error_description: expect.any(String) });
      expect(JSON.stringify(body)).not.toContain(locked.txCode);
    }
    expect(await (await redeem(locked.credentialOffer, locked.txCode)).json()).toMatchObject({ error: "invalid_grant" });

    const once = await offerFor({ personDid });
    const first = await redeem(once.credentialOffer, once.txCode);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(await first.json()).toMatchObject({ token_type: "Bearer", expires_in: 300, access_token: expect.any(String) });
    const replay = await redeem(once.credentialOffer, once.txCode);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });

    const late = await offerFor({ personDid });
    const db = (await testServer()).db;
    await db.walletOffer.update({ where: { id: late.offerId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await (await redeem(late.credentialOffer, late.txCode)).json()).toMatchObject({ error: "invalid_grant" });

    const noTx = await token({
      grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
      "pre-authorized_code": preAuthCode(late.credentialOffer),
    });
    expect(noTx.status).toBe(400);
    expect(await noTx.json()).toMatchObject({ error: "invalid_grant" });
    const json = await fetch(`${url}/oid4vci/token`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(json.status).toBe(400);
    const other = await token({ grant_type: "client_credentials" });
    expect(await other.json()).toMatchObject({ error: expect.stringMatching(/^(unsupported_grant_type|invalid_request)$/) });
  });

  it("refuses a key proof signed by another key than its header's, with a foreign nonce or audience, or stale", async () => {
    const { personDid } = await approvedPerson(url, api);
    const offered = await offerFor({ personDid });
    const res = await redeem(offered.credentialOffer, offered.txCode);
    const { access_token } = (await res.json()) as { access_token: string };
    const aud = offered.credentialOffer.credential_issuer;
    const key = await holderKey();
    const other = await holderKey();
    const now = Math.floor(Date.now() / 1000);

    const wrongSigner = await sign(other, proofHeader(key), { aud, iat: now, nonce: await nonce() });
    expect(await (await credentialRequest(access_token, wrongSigner)).json()).toMatchObject({ error: "invalid_proof" });
    const forgedNonce = await sign(key, proofHeader(key), { aud, iat: now, nonce: `${now + 300}.abc.0000` });
    expect(await (await credentialRequest(access_token, forgedNonce)).json()).toMatchObject({ error: "invalid_nonce" });
    const wrongAud = await sign(key, proofHeader(key), { aud: "https://verifier.example", iat: now, nonce: await nonce() });
    expect(await (await credentialRequest(access_token, wrongAud)).json()).toMatchObject({ error: "invalid_proof" });
    const stale = await sign(key, proofHeader(key), { aud, iat: now - 3600, nonce: await nonce() });
    expect(await (await credentialRequest(access_token, stale)).json()).toMatchObject({ error: "invalid_proof" });
    const noToken = await credentialRequest("not-a-token", stale);
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get("www-authenticate")).toContain("invalid_token");

    // The refusals spent nothing: a good ES256 proof still gets the credential.
    const p256 = await holderKey("ES256");
    const good = await sign(p256, proofHeader(p256), { aud, iat: now, nonce: await nonce() });
    const issued = await credentialRequest(access_token, good);
    expect(issued.status).toBe(200);
    const body = (await issued.json()) as { credentials: { credential: string }[] };
    const { verified } = await relyingParty(body.credentials[0]!.credential);
    expect((verified.payload as { cnf: unknown }).cnf).toEqual({ jwk: p256.publicJwk });
    expect(verified.payload).not.toHaveProperty("account");
    expect(verified.payload).not.toHaveProperty("status");
  });

  it("offers only to an approved, unflagged, not erased person, and names only an account bound to them", async () => {
    const started = await api.post("/v1/kyc/start", {});
    expect(applicantOf(started.body.verificationUrl)).toBeTruthy();
    const pending = await api.post("/v1/wallet/offers", { personDid: started.body.personDid });
    expect(pending.status, pending.text).toBe(409);
    expect(pending.body.error.details.reason).toBe("person_not_approved");

    const ready = await accountReadyToBind(url, api);
    const unbound = await api.post("/v1/wallet/offers", { personDid: ready.personDid, accountDid: ready.accountDid });
    expect(unbound.status, unbound.text).toBe(409);
    expect(unbound.body.error.details.reason).toBe("account_not_bound");

    const db = (await testServer()).db;
    const id = ready.personDid.split(":").pop()!;
    await db.person.update({ where: { id }, data: { sanctionsFlag: true } });
    const flagged = await api.post("/v1/wallet/offers", { personDid: ready.personDid });
    expect(flagged.status, flagged.text).toBe(409);
    expect(flagged.body.error.details.reason).toBe("person_flagged");

    const unknown = await call(url, "POST", "/v1/wallet/offers", { key: null, body: { personDid: ready.personDid } });
    expect(unknown.status).toBe(401);

    const gone = await approvedPerson(url, api);
    await db.person.update({ where: { id: gone.personDid.split(":").pop()! }, data: { erasedAt: new Date() } });
    const erased = await api.post("/v1/wallet/offers", { personDid: gone.personDid });
    expect(erased.status, erased.text).toBe(409);
    expect(erased.body.error.details.reason).toBe("person_erased");
  });

  it("redeems an offer once under concurrent requests, and issues nothing to a person flagged after the offer", async () => {
    const { personDid } = await approvedPerson(url, api);
    const offered = await offerFor({ personDid });
    const answers = await Promise.all(Array.from({ length: 5 }, () => redeem(offered.credentialOffer, offered.txCode)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400, 400]);
    const { access_token } = (await answers.find((a) => a.status === 200)!.json()) as { access_token: string };

    const db = (await testServer()).db;
    await db.person.update({ where: { id: personDid.split(":").pop()! }, data: { sanctionsFlag: true } });
    const key = await holderKey();
    const proof = await sign(key, proofHeader(key), {
      aud: offered.credentialOffer.credential_issuer,
      iat: Math.floor(Date.now() / 1000),
      nonce: await nonce(),
    });
    const denied = await credentialRequest(access_token, proof);
    expect(denied.status).toBe(400);
    expect(await denied.json()).toMatchObject({ error: "credential_request_denied" });
    expect((await db.walletOffer.findUniqueOrThrow({ where: { id: offered.offerId } })).issuedAt).toBeNull();
  });

  it("publishes issuer, authorization server and type metadata the library accepts, and audits the offer without its codes", async () => {
    const meta = await (await fetch(`${url}/.well-known/openid-credential-issuer`)).json();
    expect(meta.credential_configurations_supported[CONFIG]).toMatchObject({
      format: "dc+sd-jwt",
      cryptographic_binding_methods_supported: ["jwk"],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["EdDSA", "ES256"] } },
    });
    const as = await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json();
    expect(as.grant_types_supported).toEqual(["urn:ietf:params:oauth:grant-type:pre-authorized_code"]);

    const { personDid } = await approvedPerson(url, api);
    const offered = await offerFor({ personDid });
    const db = (await testServer()).db;
    const entry = await db.auditEntry.findFirst({ where: { action: "wallet.offer_created", subject: personDid } });
    expect(entry?.data).toMatchObject({ offerId: offered.offerId });
    const text = JSON.stringify(entry);
    expect(text).not.toContain(offered.txCode);
    expect(text).not.toContain(preAuthCode(offered.credentialOffer));
    const row = await db.walletOffer.findUniqueOrThrow({ where: { id: offered.offerId } });
    expect(JSON.stringify(row)).not.toContain(preAuthCode(offered.credentialOffer));
  });
});
