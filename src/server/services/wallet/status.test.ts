import { createPublicKey, verify as verifySignature } from "node:crypto";
import { gunzipSync, inflateSync } from "node:zlib";
import type { Jwk } from "@openid4vc/oauth2";
import { setGlobalConfig } from "@openid4vc/openid4vci";
import { digest } from "@sd-jwt/crypto-nodejs";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { compactVerify, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { checkStatusWithDigitalBazaar } from "../../testing/independent-status-checker";
import { approvedPerson, boundAccount } from "../../testing/kyc-flow";
import { newHolder, receiveCredential } from "../../testing/wallet-holder";

/**
 * The wallet credential's status: the binding's revocation bit, published as an IETF Token Status
 * List beside the W3C list it is the same bits of. The verifier is another organization's, with
 * only the public endpoints and @sd-jwt/sd-jwt-vc's own status list fetch and check; the issuer's
 * public origin (BI_PUBLIC_URL) is mapped to the test server, as DNS would map it.
 */
let url: string;
let issuerOrigin: string;
let api: ReturnType<typeof client>;
const realFetch = globalThis.fetch;

const mapped = (input: string | URL | Request) => {
  const u = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  return u.origin === issuerOrigin ? `${url}${u.pathname}${u.search}` : u.href;
};

beforeAll(async () => {
  url = (await testServer()).url;
  api = client(url, (await createTestOrg({ name: `Wallet status A ${process.pid}` })).apiKey);
  issuerOrigin = new URL(process.env.BI_PUBLIC_URL!).origin;
  setGlobalConfig({ allowInsecureUrls: true });
  // The library fetches the status list with the global fetch (Accept: application/statuslist+jwt).
  vi.stubGlobal("fetch", ((input, init) =>
    input instanceof Request ? realFetch(new Request(mapped(input), input), init) : realFetch(mapped(input), init)) as typeof fetch);
});
afterAll(() => vi.unstubAllGlobals());

/** A credential for the offer, fetched as a wallet does (token, nonce, key proof), bound to a fresh EdDSA key. */
const walletCredential = async (body: { personDid: string; accountDid?: string }) => receiveCredential(url, api, await newHolder(), body);

/** Organization B's verifier: the issuer's keys from its published SD-JWT VC issuer metadata; the library's status check. */
async function verifierOfB() {
  const meta = (await (await fetch(`${issuerOrigin}/.well-known/jwt-vc-issuer`)).json()) as { jwks: { keys: Jwk[] } };
  const keyOf = (token: string) => {
    const { kid } = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()) as { kid: string };
    const jwk = meta.jwks.keys.find((k) => k.kid === kid);
    expect(jwk, "the kid is published").toBeDefined();
    return jwk!;
  };
  const instance = (signedBy: Jwk) =>
    new SDJwtVcInstance({
      hasher: digest,
      verifier: (data: string, sig: string) =>
        verifySignature(null, Buffer.from(data), createPublicKey({ key: signedBy as never, format: "jwk" }), Buffer.from(sig, "base64url")),
    });
  return { keys: meta.jwks.keys, keyOf, verify: (credential: string) => instance(keyOf(credential)).verify(credential) };
}

const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

/** A token's bits (least significant first, zlib), and the status at one index, read by hand (the library's own read is in verify). */
const tokenBits = (token: string) =>
  inflateSync(Buffer.from((payloadOf(token) as { status_list: { lst: string } }).status_list.lst, "base64url"));
const tokenStatus = (token: string, idx: number) => (tokenBits(token)[idx >> 3]! >> (idx & 7)) & 1;

describe("wallet credential status (IETF Token Status List over the binding's W3C revocation list)", () => {
  it("is valid when issued, revoked by the binding's revocation for a verifier of another organization, the same bit in both forms", async () => {
    const { db } = await testServer();
    const { personDid, accountDid, credential: w3c } = await boundAccount(url, api);
    const revocation = (w3c.credentialStatus as { statusPurpose: string; statusListIndex: string; statusListCredential: string }[]).find(
      (e) => e.statusPurpose === "revocation",
    )!;
    const credential = await walletCredential({ personDid, accountDid });

    // In the signed payload, in clear (never a disclosure): the binding's revocation position.
    const signed = payloadOf(credential.split("~")[0]!);
    expect(signed.status).toEqual({ status_list: { idx: Number(revocation.statusListIndex), uri: revocation.statusListCredential } });

    const b = await verifierOfB();
    const fresh = await b.verify(credential);
    expect((fresh.payload as Record<string, unknown>).account).toBe(accountDid);

    // The token itself: its media type, header, claims and signature by a published key.
    const { uri, idx } = (signed.status as { status_list: { uri: string; idx: number } }).status_list;
    const res = await fetch(uri, { headers: { accept: "application/statuslist+jwt" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/statuslist+jwt");
    expect(res.headers.get("vary")).toBe("Accept");
    const token = await res.text();
    const verified = await compactVerify(token, await importJWK(b.keyOf(token) as never, "EdDSA"));
    expect(verified.protectedHeader).toMatchObject({ alg: "EdDSA", typ: "statuslist+jwt" });
    const claims = payloadOf(token) as { sub: string; iat: number; exp: number; ttl: number; status_list: { bits: number } };
    expect(claims.sub).toBe(uri);
    expect(claims.ttl).toBe(60);
    expect(claims.exp).toBeGreaterThan(claims.iat);
    expect(claims.status_list.bits).toBe(1);
    expect(tokenStatus(token, idx)).toBe(0);

    // Organization A's compliance officer revokes the binding.
    const binding = await db.accountBinding.findFirstOrThrow({ where: { account: { did: accountDid } } });
    const revoked = await api.post(`/v1/bindings/${binding.id}/revoke`, { reason: "The account was sold" });
    expect(revoked.status, revoked.text).toBe(200);

    await expect(b.verify(credential)).rejects.toThrow("Status is not valid");
    const after = await (await fetch(uri, { headers: { accept: "application/statuslist+jwt" } })).text();
    expect(tokenStatus(after, idx)).toBe(1);

    // The W3C form of the same list, at the same time, says revoked at the same index.
    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    const fetchList = async (listUrl: string) => (await fetch(listUrl)).json();
    expect(await checkStatusWithDigitalBazaar(w3c, issuer, fetchList)).toMatchObject({ verified: true, revocation: true });

    // Bit for bit: the W3C list (MSB first, GZIP) and the token (LSB first, zlib) hold the same set positions.
    const list = (await fetchList(uri)) as { credentialSubject: { encodedList: string } };
    const msb = gunzipSync(Buffer.from(list.credentialSubject.encodedList.slice(1), "base64url"));
    const lsb = tokenBits(after);
    expect(lsb.length).toBe(msb.length);
    const setIn = (bytes: Buffer, bit: (i: number) => number) => {
      const out: number[] = [];
      for (let i = 0; i < bytes.length * 8; i++) if (bytes[i >> 3]! & bit(i)) out.push(i);
      return out;
    };
    const w3cSet = setIn(msb, (i) => 0x80 >> (i & 7));
    expect(w3cSet).toContain(idx);
    expect(setIn(lsb, (i) => 1 << (i & 7))).toEqual(w3cSet);
  });

  it("carries no status when the offer names no account, and the status list answers 404 for an unknown list in every form", async () => {
    const { personDid } = await approvedPerson(url, api);
    const credential = await walletCredential({ personDid });
    expect(payloadOf(credential.split("~")[0]!)).not.toHaveProperty("status");
    const b = await verifierOfB();
    await expect(b.verify(credential)).resolves.toBeDefined();

    const missing = `${url}/credentials/status/00000000-0000-4000-8000-000000000000`;
    expect((await fetch(missing, { headers: { accept: "application/statuslist+jwt" } })).status).toBe(404);
    expect((await fetch(missing)).status).toBe(404);
  });
});
