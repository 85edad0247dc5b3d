import { publicUrl } from "@/env";
import * as wallet from "../../services/wallet";
import { reply, route } from "../route";
import type { PipelineState } from "../types";

const PERSON_DID = "did:web:id.example.com:people:0d9e8f7a-6b5c-4d3e-8f21-a1b2c3d4e5f6";
const CODE = "Gm3kQ0o1yq8VbW2hZ5tR7xJ4nC6dL9pA0sE3fU1iK2c";
const OFFER_QUERY = `credential_offer=%7B%22credential_issuer%22%3A%22https%3A%2F%2Fid.example.com%22%2C%22credential_configuration_ids%22%3A%5B%22AccountBindingSdJwt%22%5D%2C%22grants%22%3A%7B%22urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Apre-authorized_code%22%3A%7B%22pre-authorized_code%22%3A%22${CODE}%22%7D%7D%7D`;

/** Metadata documents change only with a deployment or a key rotation. */
const metadataCache = { "cache-control": "public, max-age=300" };

const protocolRequest = (state: PipelineState) => ({
  method: state.req.method,
  url: publicUrl(state.req.path),
  headers: state.req.headers,
  body: state.req.body,
});

const answer = (a: wallet.ProtocolAnswer) => reply(a.status, a.body, a.headers);

/**
 * Credentials in a person's own wallet: the tenant's offer (/v1), and the OpenID for Verifiable
 * Credential Issuance 1.0 endpoints a wallet talks to (public, at the service's origin, answering
 * in the specifications' shapes; docs/api/guides/wallets.md), all under the Wallets tag. The
 * pipeline claims their paths in a whole deployment (http/paths.ts).
 */
export const walletRoutes = [
  route({
    method: "POST",
    path: "/v1/wallet/offers",
    auth: { scope: "bind_write" },
    tag: "Wallets",
    summary:
      "A credential offer (OpenID4VCI 1.0, pre-authorized code) for an approved person, optionally naming an account bound to them: show credentialOfferUri to the person's wallet and give them txCode on another channel. Valid 10 minutes, redeemed once.",
    body: wallet.WalletOfferInput,
    response: wallet.WalletOfferCreated,
    successStatus: 201,
    errors: ["NOT_FOUND", "CONFLICT"],
    examples: {
      request: { personDid: PERSON_DID, accountDid: "did:antelope:sandbox:alice1234" },
      response: {
        offerId: "7b1e4c2a-9d3f-4e8a-b6c5-2f0a1d9e8c7b",
        credentialOffer: {
          credential_issuer: "https://id.example.com",
          credential_configuration_ids: ["AccountBindingSdJwt"],
          grants: {
            "urn:ietf:params:oauth:grant-type:pre-authorized_code": {
              "pre-authorized_code": CODE,
              tx_code: { input_mode: "numeric", length: 6, description: "The 6-digit code you were given with this offer." },
            },
          },
        },
        credentialOfferUri: `openid-credential-offer://?${OFFER_QUERY}`,
        offerPageUrl: `https://id.example.com/wallet/offer#${OFFER_QUERY}`,
        txCode: "493027",
        expiresAt: "2026-03-02T09:40:00.000Z",
      },
    },
    handler: ({ ctx, body }) => wallet.createWalletOffer(ctx, body),
  }),
  route({
    method: "GET",
    path: "/.well-known/openid-credential-issuer",
    auth: "public",
    tag: "Wallets",
    summary:
      "OpenID4VCI 1.0 credential issuer metadata: the credential, nonce and (through the authorization server metadata) token endpoints, and the one credential configuration, AccountBindingSdJwt (dc+sd-jwt, holder key as a JWK, jwt key proofs with EdDSA or ES256).",
    response: wallet.CredentialIssuerMetadataView,
    cors: true,
    handler: async () => reply(200, wallet.credentialIssuerMetadata(), metadataCache),
  }),
  route({
    method: "GET",
    path: "/.well-known/oauth-authorization-server",
    auth: "public",
    tag: "Wallets",
    summary: "RFC 8414 authorization server metadata: the token endpoint and the pre-authorized code grant, without client authentication.",
    response: wallet.AuthorizationServerMetadataView,
    cors: true,
    handler: async () => reply(200, wallet.authorizationServerMetadata(), metadataCache),
  }),
  route({
    method: "GET",
    path: "/.well-known/jwt-vc-issuer",
    auth: "public",
    tag: "Wallets",
    summary:
      "SD-JWT VC issuer metadata: the issuer's Ed25519 keys as JWKs (kid = the multibase key id of did.json), for verifiers of the wallet credential, whose iss is this origin.",
    response: wallet.JwtVcIssuerMetadataView,
    cors: true,
    handler: async () => reply(200, wallet.jwtVcIssuerMetadata(), metadataCache),
  }),
  route({
    method: "GET",
    path: "/vct/account-binding",
    auth: "public",
    tag: "Wallets",
    summary: "SD-JWT VC type metadata of the wallet credential's vct: its name, and each claim's label and description.",
    response: wallet.TypeMetadataView,
    cors: true,
    handler: async () => reply(200, wallet.typeMetadata(), metadataCache),
  }),
  route({
    method: "POST",
    path: "/oid4vci/token",
    auth: "public",
    tag: "Wallets",
    summary:
      "OAuth 2.0 token endpoint, form-encoded: grant_type=urn:ietf:params:oauth:grant-type:pre-authorized_code, pre-authorized_code and tx_code. Single use; 5 wrong transaction codes lock the offer. Answers {access_token, token_type: Bearer, expires_in} or an RFC 6749 error object (invalid_grant, invalid_request, unsupported_grant_type); a body that is not form-encoded is 400 VALIDATION_ERROR in the usual envelope.",
    response: wallet.ProtocolAnswerView,
    handler: async ({ state }) => answer(await wallet.tokenEndpoint(state.db, protocolRequest(state))),
  }),
  route({
    method: "POST",
    path: "/oid4vci/nonce",
    auth: "public",
    tag: "Wallets",
    summary: "OpenID4VCI 1.0 nonce endpoint: a c_nonce (5 minutes) for the key proof of the next credential request.",
    response: wallet.ProtocolAnswerView,
    handler: async () => answer(wallet.nonceEndpoint()),
  }),
  route({
    method: "POST",
    path: "/oid4vci/credential",
    auth: "public",
    tag: "Wallets",
    summary:
      'OpenID4VCI 1.0 credential endpoint: Authorization: Bearer <access token>, JSON {credential_configuration_id: AccountBindingSdJwt, proofs: {jwt: [<key proof>]}}; answers {credentials: [{credential: <SD-JWT VC>}]}, one per offer, or an OpenID4VCI error object (invalid_proof, invalid_nonce, credential_request_denied, invalid_credential_request); a missing, expired or spent access token is 401 with WWW-Authenticate: Bearer error="invalid_token" and the usual envelope.',
    response: wallet.ProtocolAnswerView,
    errors: ["UNAUTHORIZED"],
    handler: async ({ state }) => answer(await wallet.credentialEndpoint(state.db, protocolRequest(state))),
  }),
];
