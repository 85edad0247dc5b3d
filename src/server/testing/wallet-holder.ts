import { createHash } from "node:crypto";
import { setGlobalConfig } from "@openid4vc/oauth2";
import { Openid4vpClient } from "@openid4vc/openid4vp";
import { digest, generateSalt } from "@sd-jwt/crypto-nodejs";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { DcqlQuery } from "dcql";
import { CompactSign, type CryptoKey, compactVerify, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { expect } from "vitest";
import { decodePublicKeyMultibase } from "../crypto/issuer-keys";
import type { client } from "./harness";

/**
 * A person's wallet in tests, made only of the published libraries a wallet would use: the
 * OpenID4VCI exchange by hand over HTTP (token, nonce, key proof with jose), and for presentations
 * @openid4vc/openid4vp's client (request resolution, the JAR's signature checked against our
 * did.json), dcql's matcher (what to disclose) and @sd-jwt/sd-jwt-vc's present with a key binding
 * JWT. The service's public origin is mapped to the test server, as DNS would map it.
 */
export type Holder = { privateKey: CryptoKey; publicJwk: JWK };

export async function newHolder(): Promise<Holder> {
  const { publicKey, privateKey } = await generateKeyPair("EdDSA", { extractable: true });
  return { privateKey, publicJwk: await exportJWK(publicKey) };
}

/** fetch that sends the service's public origin (BI_PUBLIC_URL) to the test server at `url`. */
export function mappedFetch(url: string): typeof fetch {
  const origin = new URL(process.env.BI_PUBLIC_URL!).origin;
  const map = (u: string) => (new URL(u).origin === origin ? `${url}${new URL(u).pathname}${new URL(u).search}` : u);
  return ((input: string | URL | Request, init?: RequestInit) =>
    input instanceof Request ? fetch(new Request(map(input.url), input), init) : fetch(map(String(input)), init)) as typeof fetch;
}

/** Redeems a fresh offer as a wallet does and answers the SD-JWT VC bound to the holder's key. */
export async function receiveCredential(
  url: string,
  api: ReturnType<typeof client>,
  holder: Holder,
  body: { personDid: string; accountDid?: string },
): Promise<string> {
  const offered = await api.post("/v1/wallet/offers", body);
  expect(offered.status, offered.text).toBe(201);
  const offer = offered.body.credentialOffer;
  const tokenRes = await fetch(`${url}/oid4vci/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
      "pre-authorized_code": offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"],
      tx_code: offered.body.txCode,
    }),
  });
  const { access_token } = (await tokenRes.json()) as { access_token: string };
  const { c_nonce } = (await (await fetch(`${url}/oid4vci/nonce`, { method: "POST" })).json()) as { c_nonce: string };
  const proof = await new CompactSign(
    new TextEncoder().encode(JSON.stringify({ aud: offer.credential_issuer, iat: Math.floor(Date.now() / 1000), nonce: c_nonce })),
  )
    .setProtectedHeader({ alg: "EdDSA", typ: "openid4vci-proof+jwt", jwk: holder.publicJwk })
    .sign(holder.privateKey);
  const res = await fetch(`${url}/oid4vci/credential`, {
    method: "POST",
    headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
    body: JSON.stringify({ credential_configuration_id: "AccountBindingSdJwt", proofs: { jwt: [proof] } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { credentials: { credential: string }[] }).credentials[0]!.credential;
}

/** The request a wallet resolves from an `openid4vp://` link: its JAR fetched and checked against the DID document. */
export async function resolveRequest(url: string, requestUri: string) {
  setGlobalConfig({ allowInsecureUrls: true });
  const fetcher = mappedFetch(url);
  const vp = new Openid4vpClient({
    callbacks: {
      fetch: fetcher,
      hash: (data: Uint8Array, alg: string) => new Uint8Array(createHash(alg.replace("-", "")).update(data).digest()),
      verifyJwt: async (signer: { method: string; didUrl?: string; alg: string }, jwt: { compact: string }) => {
        if (signer.method !== "did" || !signer.didUrl) return { verified: false };
        const [did, fragment] = signer.didUrl.split("#");
        const doc = (await (await fetcher(didDocumentUrl(did!))).json()) as {
          verificationMethod: { id: string; publicKeyMultibase: string }[];
        };
        const vm = doc.verificationMethod.find((m) => m.id === signer.didUrl || m.id.endsWith(`#${fragment}`));
        if (!vm) return { verified: false };
        const raw = decodePublicKeyMultibase(vm.publicKeyMultibase);
        const jwk = { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") };
        try {
          await compactVerify(jwt.compact, await importJWK(jwk, "EdDSA"));
          return { verified: true, signerJwk: jwk };
        } catch {
          return { verified: false };
        }
      },
    } as never,
  });
  const params = Object.fromEntries(new URL(requestUri).searchParams);
  const parsed = vp.parseOpenid4vpAuthorizationRequest({ authorizationRequest: requestUri });
  expect(params.request_uri).toBeDefined();
  return {
    client: vp,
    fetcher,
    resolved: await vp.resolveOpenId4vpAuthorizationRequest({ authorizationRequestPayload: parsed.params as never }),
  };
}

/** did:web:<host>[:path] → its did.json URL (W3C did:web). */
function didDocumentUrl(did: string): string {
  const [host, ...path] = did.replace(/^did:web:/, "").split(":");
  const origin = `${new URL(process.env.BI_PUBLIC_URL!).protocol}//${decodeURIComponent(host!)}`;
  return path.length ? `${origin}/${path.join("/")}/did.json` : `${origin}/.well-known/did.json`;
}

export type PresentOptions = {
  /** Override what goes into the key binding JWT (a wrong nonce or audience). */
  kb?: { nonce?: string; aud?: string };
  /** Disclose these claims instead of what the DCQL query matched. */
  disclose?: string[];
  /** Sign the key binding JWT with another key than the credential's. */
  signer?: Holder;
};

/**
 * Answers a resolved request: dcql picks the credential and the claims, sd-jwt-vc presents them
 * with a key binding JWT, the openid4vp client builds and posts the direct_post response.
 */
export async function present(
  wallet: Awaited<ReturnType<typeof resolveRequest>>,
  holder: Holder,
  credential: string,
  opts: PresentOptions = {},
): Promise<Response> {
  const request = wallet.resolved.authorizationRequestPayload as {
    client_id: string;
    nonce: string;
    response_uri: string;
    dcql_query: unknown;
  };
  const sdjwt = new SDJwtVcInstance({
    hasher: digest,
    saltGenerator: generateSalt,
    kbSignAlg: "EdDSA",
    kbSigner: async (data: string) => {
      const signer = opts.signer ?? holder;
      const signature = await crypto.subtle.sign("Ed25519", signer.privateKey, new TextEncoder().encode(data));
      return Buffer.from(signature).toString("base64url");
    },
  });
  const claims = (await sdjwt.getClaims(credential)) as Record<string, unknown>;
  const query = DcqlQuery.parse(request.dcql_query as never);
  DcqlQuery.validate(query);
  const match = DcqlQuery.query(query, [
    { credential_format: "dc+sd-jwt", vct: String(claims.vct), claims: claims as never, cryptographic_holder_binding: true },
  ]);
  const queryId = query.credentials[0]!.id;
  const names = opts.disclose ?? query.credentials[0]!.claims!.map((c) => String((c as { path: unknown[] }).path[0]));
  if (!opts.disclose) expect(match.can_be_satisfied).toBe(true);
  const frame = Object.fromEntries(names.map((n) => [n, true]));
  const presentation = await sdjwt.present(credential, frame as never, {
    kb: {
      payload: {
        iat: Math.floor(Date.now() / 1000),
        aud: opts.kb?.aud ?? request.client_id,
        nonce: opts.kb?.nonce ?? request.nonce,
      } as never,
    },
  });
  const response = await wallet.client.createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: wallet.resolved.authorizationRequestPayload,
    authorizationResponsePayload: { vp_token: { [queryId]: [presentation] } } as never,
  });
  const submitted = await wallet.client.submitOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: { response_uri: request.response_uri },
    authorizationResponsePayload: response.authorizationResponsePayload,
  });
  return submitted.response;
}
