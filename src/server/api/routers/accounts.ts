import * as accounts from "../../services/accounts";
import { AccountDidInput, AccountRef, ListAccountsQuery } from "../../services/accounts";
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
  suspend: consoleProcedure("admin")
    .input(AccountDidInput)
    .mutation(({ ctx, input }) => accounts.suspendAccount(ctx.svc, input.accountDid)),
});
