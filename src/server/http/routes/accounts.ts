import { z } from "zod";
import * as accounts from "../../services/accounts";
import {
  AccountDidInput,
  AccountRef,
  AccountView,
  FreeAccountCreated,
  FreeAccountInput,
  ListAccountsQuery,
  NameAvailable,
  NameAvailableQuery,
} from "../../services/accounts";
import { EXAMPLE_ACCOUNT_DID, EXAMPLE_PUBLIC_KEY } from "../openapi-examples";
import { route } from "../route";

/** An account as the examples of this file show it: just created, email proven, not yet bound. */
const account = {
  accountDid: EXAMPLE_ACCOUNT_DID,
  name: "coralreef124",
  chain: "eos",
  lifecycle: "provisional" as const,
  ownerPublicKey: EXAMPLE_PUBLIC_KEY,
  activePublicKey: EXAMPLE_PUBLIC_KEY,
  contacts: { email: "o***@acme.example", emailVerified: true, phone: null, phoneVerified: false },
  bindings: [],
  createdAt: "2025-03-14T09:26:53.000Z",
};

export const accountRoutes = [
  route({
    method: "POST",
    path: "/v1/accounts/free",
    auth: { scope: "accounts_write" },
    tag: "Accounts",
    summary: "Creates a sponsored free provisional chain account, under the organization's email, phone and KYC gates.",
    body: FreeAccountInput,
    response: FreeAccountCreated,
    successStatus: 201,
    idempotent: true,
    errors: ["FORBIDDEN", "CONFLICT", "NOT_FOUND", "PROVIDER_FAILURE", "PROVIDER_UNAVAILABLE"],
    examples: {
      request: { ownerPublicKey: EXAMPLE_PUBLIC_KEY, preferredName: "coralreef124", emailProofToken: "ept_Jx3v9QmL2pTz7RkW4nYb8c" },
      response: { ...account, transactionId: "4be1c2d0a7f93e6b8d5a0c1e2f3b4a5968778695a4b3c2d1e0f1a2b3c4d5e6f7" },
    },
    handler: ({ ctx, body }) => accounts.createFreeAccount(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/accounts/name-available",
    auth: { scope: "read" },
    tag: "Accounts",
    summary: "Advisory name check: nothing is reserved and create checks again.",
    query: NameAvailableQuery,
    response: NameAvailable,
    examples: {
      response: {
        name: "coralreef124",
        available: true,
        message: "This name is available now; nothing is reserved and create checks again.",
      },
    },
    handler: ({ ctx, query }) => accounts.nameAvailable(ctx, query.name),
  }),
  route({
    method: "GET",
    path: "/v1/accounts/{did}",
    auth: { scope: "read" },
    tag: "Accounts",
    summary:
      "An account of this organization (DID or bare name): lifecycle, masked contacts, its bindings that are not revoked (bindings) and those revoked, with when and why (revokedBindings).",
    params: AccountRef,
    response: AccountView,
    errors: ["NOT_FOUND"],
    examples: {
      response: {
        ...account,
        lifecycle: "provisional",
        revokedBindings: [
          {
            bindingId: "5f0c2a8e-3b7d-4e21-9c4a-8d2f1e6b7a90",
            personDid: "did:web:id.example.com:people:0d9e8f7a-6b5c-4d3e-8f21-a1b2c3d4e5f6",
            bindingVcHash: "83719a1996a65cfcf0e2db13d464d4a9d7faf2f099c800641c97b01a04f7c728",
            createdAt: "2025-03-14T09:31:02.000Z",
            status: "revoked",
            revokedAt: "2026-03-09T14:02:11.000Z",
            reason: "The customer closed their account with us.",
          },
        ],
      },
    },
    handler: ({ ctx, params }) => accounts.getAccount(ctx, params.did),
  }),
  route({
    method: "POST",
    path: "/v1/admin/accounts/suspend",
    auth: { scope: "admin" },
    tag: "Admin",
    summary: "Suspends an account from any state.",
    body: AccountDidInput,
    response: z
      .object({ accountDid: z.string(), lifecycle: z.literal("suspended"), previousLifecycle: z.string().nullable() })
      .meta({ id: "AccountSuspended" }),
    errors: ["NOT_FOUND"],
    handler: ({ ctx, body }) => accounts.suspendAccount(ctx, body.accountDid),
  }),
  route({
    method: "GET",
    path: "/v1/admin/accounts",
    auth: { scope: "admin" },
    tag: "Admin",
    summary: "Accounts of the organization, newest first.",
    query: ListAccountsQuery,
    response: z.object({ accounts: z.array(AccountView), nextBefore: z.string().nullable() }).meta({ id: "AccountList" }),
    handler: ({ ctx, query }) => accounts.listAccounts(ctx, query),
  }),
];
