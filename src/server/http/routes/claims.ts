import { ClaimInput, ClaimParams, ClaimResult, claim } from "../../services/claims";
import { DuplicatePolicy, DuplicatePolicyInput, getDuplicatePolicy, setDuplicatePolicy } from "../../services/kyc";
import { EXAMPLE_ACCOUNT_DID } from "../openapi-examples";
import { route } from "../route";
import type { RouteDef } from "../types";

/** One claim per human of an action (docs/api/guides/unique-person.md). */
export const claimRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/v1/claims/{action}",
    auth: { scope: "accounts_write" },
    tag: "Claims",
    summary:
      "Records that the human behind the account (its bound person, or any other verification of the same document) has claimed the action in this organization: 201 the first time, 409 already_claimed after, from any of their accounts. The claim keeps a nullifier, not the person.",
    params: ClaimParams,
    body: ClaimInput,
    response: ClaimResult,
    successStatus: 201,
    errors: ["NOT_FOUND", "CONFLICT"],
    examples: {
      request: { accountDid: EXAMPLE_ACCOUNT_DID },
      response: {
        action: "airdrop-2026-06",
        accountDid: EXAMPLE_ACCOUNT_DID,
        claimed: true,
        claimedAt: "2026-06-01T12:00:00.000Z",
        pairwiseId: "pw_3f1c9a0e4b7d2c8e6a5f1b0d9c7e3a2b4f6d8e0c",
      },
    },
    handler: ({ ctx, params, body }) => claim(ctx, params.action, body),
  }),
  route({
    method: "GET",
    path: "/v1/admin/duplicate-policy",
    auth: { scope: "admin" },
    tag: "Admin",
    summary: "What a second verified person with the same identity document gets: allow, flag (the default) or refuse (no create token).",
    response: DuplicatePolicy,
    examples: { response: { duplicatePersonPolicy: "flag" } },
    handler: ({ ctx }) => getDuplicatePolicy(ctx),
  }),
  route({
    method: "PUT",
    path: "/v1/admin/duplicate-policy",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "Sets the duplicate-person policy. Under refuse, a person flagged for another person's document is handed no create token from now on; allow stops the flags and webhooks of later approvals.",
    body: DuplicatePolicyInput,
    response: DuplicatePolicy,
    examples: { request: { duplicatePersonPolicy: "refuse" }, response: { duplicatePersonPolicy: "refuse" } },
    handler: ({ ctx, body }) => setDuplicatePolicy(ctx, body),
  }),
];
