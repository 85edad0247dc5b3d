import * as bind from "../../services/accounts";
import {
  BindChallenge,
  BindChallengeInput,
  BindConfirmed,
  BindConfirmInput,
  BindingParams,
  BindingRevoked,
  RevokeBindingInput,
  Unlocked,
  UnlockInput,
} from "../../services/accounts";
import { EXAMPLE_ACCOUNT_DID } from "../openapi-examples";
import { route } from "../route";

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
    method: "POST",
    path: "/v1/bindings/{id}/revoke",
    auth: { scope: "bind_write" },
    tag: "Bind",
    summary:
      "Ends a binding for good: the credential's revocation bit is set in the same transaction, the account goes back to provisional (an unlocked account stays unlocked), identity.unbound is sent. A second revoke is 409 already_revoked.",
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
