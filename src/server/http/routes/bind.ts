import * as bind from "../../services/accounts";
import { BindChallenge, BindChallengeInput, BindConfirmed, BindConfirmInput, Unlocked, UnlockInput } from "../../services/accounts";
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
      "Verifies the wallet signature, the person's approval, the country policy and risk, then binds and issues the AccountBinding credential (eddsa-jcs-2022).",
    body: BindConfirmInput,
    response: BindConfirmed,
    errors: ["NOT_FOUND", "CONFLICT", "INVALID_SIGNATURE", "FORBIDDEN", "PROVIDER_UNAVAILABLE"],
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
];
