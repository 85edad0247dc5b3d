import * as apiKeys from "../../services/org";
import { ApiKeyIdParams, MintApiKeyInput } from "../../services/org";
import { consoleProcedure, router } from "../trpc";

export const apiKeysRouter = router({
  list: consoleProcedure("admin").query(({ ctx }) => apiKeys.listApiKeys(ctx.svc)),
  mint: consoleProcedure("admin")
    .input(MintApiKeyInput)
    .mutation(({ ctx, input }) => apiKeys.mintApiKey(ctx.svc, input)),
  revoke: consoleProcedure("admin")
    .input(ApiKeyIdParams)
    .mutation(({ ctx, input }) => apiKeys.revokeApiKey(ctx.svc, input.id)),
});
