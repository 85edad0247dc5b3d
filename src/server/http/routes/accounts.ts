import { z } from "zod";
import * as accounts from "../../services/accounts";
import {
  AccountDidInput, AccountRef, AccountView, FreeAccountCreated, FreeAccountInput, ListAccountsQuery, NameAvailable, NameAvailableQuery,
} from "../../services/accounts";
import { route } from "../route";

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
    handler: ({ ctx, query }) => accounts.nameAvailable(ctx, query.name),
  }),
  route({
    method: "GET",
    path: "/v1/accounts/{did}",
    auth: { scope: "read" },
    tag: "Accounts",
    summary: "An account of this organization (DID or bare name): lifecycle, masked contacts, active bindings.",
    params: AccountRef,
    response: AccountView,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => accounts.getAccount(ctx, params.did),
  }),
  route({
    method: "POST",
    path: "/v1/admin/accounts/suspend",
    auth: { scope: "admin" },
    tag: "Admin",
    summary: "Suspends an account from any state.",
    body: AccountDidInput,
    response: z.object({ accountDid: z.string(), lifecycle: z.literal("suspended"), previousLifecycle: z.string().nullable() }),
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
    response: z.object({ accounts: z.array(AccountView), nextBefore: z.string().nullable() }),
    handler: ({ ctx, query }) => accounts.listAccounts(ctx, query),
  }),
];
