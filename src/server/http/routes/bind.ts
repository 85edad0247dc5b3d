import * as bind from "../../services/accounts";
import {
  BindChallenge,
  BindChallengeInput,
  BindConfirmed,
  BindConfirmInput,
  BindingParams,
  BindingRevoked,
  BindSessionCreated,
  BindSessionInput,
  BindSessionParams,
  BindSessionView,
  HostedBindConfirmed,
  HostedBindConfirmInput,
  HostedBindInput,
  HostedBindView,
  RevokeBindingInput,
  Unlocked,
  UnlockInput,
} from "../../services/accounts";
import { EXAMPLE_ACCOUNT_DID } from "../openapi-examples";
import { route } from "../route";
import type { PipelineState } from "../types";

const hosted = (state: PipelineState) => ({ db: state.db, clientIp: state.clientIp, correlationId: state.correlationId, log: state.log });

/** Wallet-signed binding of an approved person to an account, and unlock after it. */
export const bindRoutes = [
  route({
    method: "POST",
    path: "/v1/bind/challenge",
    auth: { scope: "bind_write" },
    tag: "Bind",
    summary: "A single-use nonce (10 minutes) and the human-readable text the account's owner or active key signs.",
    body: BindChallengeInput,
    response: BindChallenge,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, body }) => bind.bindChallenge(ctx, body),
  }),
  route({
    method: "POST",
    path: "/v1/bind/confirm",
    auth: { scope: "bind_write" },
    tag: "Bind",
    summary:
      "Verifies the wallet's proof (a message signature, an ESR identity proof or a signed unbroadcast transaction) against the account's authority as the chain has it, the person's approval, the country policy and risk, then binds and issues the AccountBinding credential (eddsa-jcs-2022).",
    body: BindConfirmInput,
    response: BindConfirmed,
    errors: ["NOT_FOUND", "CONFLICT", "INVALID_SIGNATURE", "FORBIDDEN", "PROVIDER_UNAVAILABLE"],
    examples: {
      request: {
        accountDid: EXAMPLE_ACCOUNT_DID,
        personDid: "did:web:id.example.com:people:0d9e8f7a-6b5c-4d3e-8f21-a1b2c3d4e5f6",
        nonce: "n_5Yt2kQ8vRz",
        signature: "SIG_K1_Jzz5CyQVX9LW6drhFqMD5TXurNJ49JiXpCiGzQySUo2vnjVrpCisHUpuGY1UBiiQWaTGNBeeVEr8KsFBnVTxRUqWBjfWuw",
      },
    },
    handler: ({ ctx, body }) => bind.bindConfirm(ctx, body),
  }),
  route({
    method: "POST",
    path: "/v1/bind/sessions",
    auth: { scope: "bind_write" },
    tag: "Bind",
    summary:
      "A link (valid one hour) to the hosted bind page, where the user reads what they agree to, connects their wallet with WharfKit and signs; the page then returns to redirectUrl.",
    body: BindSessionInput,
    response: BindSessionCreated,
    successStatus: 201,
    errors: ["NOT_FOUND", "CONFLICT"],
    examples: {
      request: {
        accountDid: EXAMPLE_ACCOUNT_DID,
        personDid: "did:web:id.example.com:people:0d9e8f7a-6b5c-4d3e-8f21-a1b2c3d4e5f6",
        redirectUrl: "https://app.example.com/wallet/bound",
      },
    },
    handler: ({ ctx, body }) => bind.createBindSession(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/bind/sessions/{id}",
    auth: { scope: "bind_write" },
    tag: "Bind",
    summary:
      "A bind session's status (open, bound, expired) and, once bound, the binding and its credential: what the redirect's handler reads.",
    params: BindSessionParams,
    response: BindSessionView,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => bind.getBindSession(ctx, params.id),
  }),
  route({
    method: "POST",
    path: "/v1/bind/hosted/view",
    auth: "public",
    tag: "Bind",
    summary:
      "The hosted bind page's details for the token in its link: the organization, the account, the person in words, and the chain to connect to.",
    body: HostedBindInput,
    response: HostedBindView,
    errors: ["NOT_FOUND", "RATE_LIMITED"],
    handler: ({ state, body }) => bind.viewHostedBind(hosted(state), body.token),
  }),
  route({
    method: "POST",
    path: "/v1/bind/hosted/challenge",
    auth: "public",
    tag: "Bind",
    summary: "The hosted bind page's challenge: the same as POST /v1/bind/challenge for the link's account and person, tied to the link.",
    body: HostedBindInput,
    response: BindChallenge,
    errors: ["NOT_FOUND", "CONFLICT", "RATE_LIMITED"],
    handler: ({ state, body }) => bind.hostedBindChallenge(hosted(state), body.token),
  }),
  route({
    method: "POST",
    path: "/v1/bind/hosted/confirm",
    auth: "public",
    tag: "Bind",
    summary:
      "The hosted bind page's confirm: the wallet's proof for one of the link's challenges, checked and bound as POST /v1/bind/confirm does; a bound link answers its result again.",
    body: HostedBindConfirmInput,
    response: HostedBindConfirmed,
    errors: ["NOT_FOUND", "CONFLICT", "INVALID_SIGNATURE", "FORBIDDEN", "PROVIDER_UNAVAILABLE", "RATE_LIMITED"],
    examples: {
      request: {
        token: "q3T0n6Yb0sXn1cYkVfWm9Pq4Lr8Zt2Hd5Jw7Ke1Mv0",
        nonce: "n_5Yt2kQ8vRz",
        signedTransaction: {
          transaction: "8f6e1c6a000000000000000000000100000000000000000000805a2b5d5ef50100000000a8ed3232000000",
          signatures: ["SIG_K1_Jzz5CyQVX9LW6drhFqMD5TXurNJ49JiXpCiGzQySUo2vnjVrpCisHUpuGY1UBiiQWaTGNBeeVEr8KsFBnVTxRUqWBjfWuw"],
        },
      },
    },
    handler: ({ state, body }) => bind.hostedBindConfirm(hosted(state), body),
  }),
  route({
    method: "POST",
    path: "/v1/accounts/unlock",
    auth: { scope: "unlock_write" },
    tag: "Accounts",
    summary: "Removes the faucet cosigner from a bound account's owner permission; the account is then the user's alone. Safe to retry.",
    body: UnlockInput,
    response: Unlocked,
    errors: ["NOT_FOUND", "CONFLICT", "PROVIDER_FAILURE", "PROVIDER_UNAVAILABLE"],
    handler: ({ ctx, body }) => bind.unlockAccount(ctx, body.accountDid),
  }),
  route({
    method: "GET",
    path: "/v1/bindings/{id}",
    auth: { scope: "read" },
    tag: "Bind",
    summary:
      "A binding of this organization as it stands (status, why it is suspended, when it was revoked) with its AccountBinding credential, exactly as the bind answer gave it: the credential can be read again instead of kept.",
    params: BindingParams,
    response: bind.BindingView,
    errors: ["NOT_FOUND"],
    examples: {
      response: {
        bindingId: "5f0c2a8e-3b7d-4e21-9c4a-8d2f1e6b7a90",
        accountDid: "did:antelope:sandbox:alice1234",
        personDid: "did:web:id.example.com:people:0d9e8f7a-6b5c-4d3e-8f21-a1b2c3d4e5f6",
        bindingVcHash: "83719a1996a65cfcf0e2db13d464d4a9d7faf2f099c800641c97b01a04f7c728",
        status: "active",
        createdAt: "2026-03-02T09:30:00.000Z",
        revokedAt: null,
        credential: {
          "@context": ["https://www.w3.org/ns/credentials/v2"],
          id: "urn:uuid:5f0c2a8e-3b7d-4e21-9c4a-8d2f1e6b7a90",
          type: ["VerifiableCredential", "AccountBindingCredential"],
          issuer: "did:web:id.example.com",
          validFrom: "2026-03-02T09:30:00Z",
          credentialSubject: {
            id: "did:web:id.example.com:people:0d9e8f7a-6b5c-4d3e-8f21-a1b2c3d4e5f6",
            account: "did:antelope:sandbox:alice1234",
            kycLevel: "basic-kyc",
          },
          proof: {
            type: "DataIntegrityProof",
            cryptosuite: "eddsa-jcs-2022",
            created: "2026-03-02T09:30:00Z",
            verificationMethod: "did:web:id.example.com#z6MkmjnMAQrkRMxg4GXyMSwBWdVTUY1dgsUhC1AJy3H1Rpoo",
            proofPurpose: "assertionMethod",
            proofValue: "z4AwKwzFcpmx1WHRgPVu6xN78G7VPGoSkw3HcbgBxkpUyzW2rTEvDDbairRyh4M1HGxxw2vivCCmgGxwf7iy5xxhk",
          },
        },
      },
    },
    handler: ({ ctx, params }) => bind.getBinding(ctx, params.id),
  }),
  route({
    method: "POST",
    path: "/v1/bindings/{id}/revoke",
    // A compliance decision, as in the console (compliance officer): not the wallet backend's bind_write (docs/decisions.md, "Credential status").
    auth: { scope: "compliance_export" },
    tag: "Bind",
    summary:
      "Ends a binding for good: the credential's revocation bit is set in the same transaction, the account goes back to provisional (an unlocked account stays unlocked), identity.unbound is sent. Needs the compliance_export scope, not bind_write. A second revoke is 409 already_revoked.",
    params: BindingParams,
    body: RevokeBindingInput,
    response: BindingRevoked,
    idempotent: true,
    errors: ["NOT_FOUND", "CONFLICT"],
    examples: {
      request: { reason: "The customer closed their account with us." },
      response: {
        bindingId: "5f0c2a8e-3b7d-4e21-9c4a-8d2f1e6b7a90",
        accountDid: "did:antelope:sandbox:alice1234",
        personDid: "did:web:id.example.com:people:0d9e8f7a-6b5c-4d3e-8f21-a1b2c3d4e5f6",
        bindingVcHash: "83719a1996a65cfcf0e2db13d464d4a9d7faf2f099c800641c97b01a04f7c728",
        status: "revoked",
        revokedAt: "2026-03-09T14:02:11.000Z",
        reason: "The customer closed their account with us.",
        lifecycle: "provisional",
      },
    },
    handler: ({ ctx, params, body }) => bind.revokeBinding(ctx, params.id, body),
  }),
];
