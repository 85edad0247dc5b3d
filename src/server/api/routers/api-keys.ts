import * as apiKeys from "../../services/org";
import { ApiKeyIdParams, MintApiKeyInput } from "../../services/org";
import { consoleProcedure, router } from "../trpc";

export const apiKeysRouter = router({
  list: consoleProcedure("admin").query(({ ctx }) => apiKeys.listApiKeys(ctx.svc)),
  /** The key page: its fields, who created it, and the audit entries made with it or about it. */
  get: consoleProcedure("admin")
    .input(ApiKeyIdParams)
    .query(({ ctx, input }) => apiKeys.getApiKeyDetail(ctx.svc, input.id)),
  mint: consoleProcedure("admin")
    .input(MintApiKeyInput)
    .mutation(({ ctx, input }) => apiKeys.mintApiKey(ctx.svc, input)),
  revoke: consoleProcedure("admin")
    .input(ApiKeyIdParams)
    .mutation(({ ctx, input }) => apiKeys.revokeApiKey(ctx.svc, input.id)),
});
