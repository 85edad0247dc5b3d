import * as org from "../../services/org";
import { ApiKeyIdParams, ApiKeyList, MintApiKeyInput, MintedApiKey, RevokedApiKey } from "../../services/org";
import { route } from "../route";
import type { RouteDef } from "../types";

const admin = { scope: "admin" } as const;
const tag = "Admin";

/** /v1/admin/api-keys: list, mint (optionally rotating another key out), revoke (scope `admin`). */
export const apiKeyRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/api-keys",
    auth: admin,
    tag,
    summary: "The organization's API keys, revoked ones included: prefixes only, never the keys or their hashes.",
    response: ApiKeyList,
    handler: ({ ctx }) => org.listApiKeys(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/admin/api-keys",
    auth: admin,
    tag,
    summary:
      "Mints an API key, returned once. Omitting scopes grants every scope including admin (scopeNotice says so); revokeKeyId rotates out an old key in the same step.",
    body: MintApiKeyInput,
    response: MintedApiKey,
    successStatus: 201,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    examples: { request: { name: "Sign-up backend", scopes: ["read", "accounts_write"] } },
    handler: ({ ctx, body }) => org.mintApiKey(ctx, body),
  }),
  route({
    method: "DELETE",
    path: "/v1/admin/api-keys/{id}",
    auth: admin,
    tag,
    summary: "Revokes an API key of this organization; it answers 401 from then on. Revoking again answers the first revocation.",
    params: ApiKeyIdParams,
    response: RevokedApiKey,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    handler: ({ ctx, params }) => org.revokeApiKey(ctx, params.id),
  }),
];
