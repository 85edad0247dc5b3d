import { z } from "zod";
import * as accounts from "../../services/accounts";
import { AccountDidInput, AccountRef, BindingParams, ListAccountsQuery, RevokeBindingInput } from "../../services/accounts";
import { consoleProcedure, router } from "../trpc";

export const accountsRouter = router({
  list: consoleProcedure("viewer")
    .input(ListAccountsQuery)
    .query(({ ctx, input }) => accounts.listAccounts(ctx.svc, input)),
  get: consoleProcedure("viewer")
    .input(AccountRef)
    .query(({ ctx, input }) => accounts.getAccount(ctx.svc, input.did)),
  /** The account page: bindings with their credentials, the people bound, and the audit entries about it. */
  detail: consoleProcedure("viewer")
    .input(AccountRef)
    .query(({ ctx, input }) => accounts.getAccountDetail(ctx.svc, input.did)),
  /** POST /v1/bindings/{id}/revoke's twin: ending a binding is a compliance decision. */
  revokeBinding: consoleProcedure("compliance_officer")
    .input(z.object({ id: BindingParams.shape.id, body: RevokeBindingInput }))
    .mutation(({ ctx, input }) => accounts.revokeBinding(ctx.svc, input.id, input.body)),
  suspend: consoleProcedure("admin")
    .input(AccountDidInput)
    .mutation(({ ctx, input }) => accounts.suspendAccount(ctx.svc, input.accountDid)),
});
