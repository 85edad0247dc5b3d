import * as apiKeys from "../../services/org";
import * as tenant from "../../services/org";
import { ApiKeyIdParams, ApiKeyList, MintApiKeyInput, MintedApiKey, RevokedApiKey } from "../../services/org";
import {
  AdminTenantView,
  CountryPolicyInput,
  CountryPolicyView,
  DpaAcceptedView,
  IpAllowlistInput,
  IpAllowlistView,
  PolicyPatchInput,
  PolicyView,
  SigningDisabledView,
  SigningEnabledView,
} from "../../services/org";
import type { RouteDef } from "../types";
import { route } from "../route";

const admin = { scope: "admin" } as const;
const tag = "Admin";

/** /v1/admin/*: API keys, signing, IP allowlist, country policy, DPA, tenant and policy (scope `admin`). */
export const adminRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/api-keys",
    auth: admin,
    tag,
    summary: "The organization's API keys, revoked ones included: prefixes only, never the keys or their hashes.",
    response: ApiKeyList,
    handler: ({ ctx }) => apiKeys.listApiKeys(ctx),
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
    handler: ({ ctx, body }) => apiKeys.mintApiKey(ctx, body),
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
    handler: ({ ctx, params }) => apiKeys.revokeApiKey(ctx, params.id),
  }),
  route({
    method: "POST",
    path: "/v1/admin/signing/enable",
    auth: admin,
    tag,
    summary:
      "Turns HMAC request signing on and returns the signing secret once. Calling it again rotates the secret (the old one stops working at once).",
    response: SigningEnabledView,
    handler: ({ ctx }) => tenant.enableSigning(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/admin/signing/disable",
    auth: admin,
    tag,
    summary: "Turns HMAC request signing off and discards the secret.",
    response: SigningDisabledView,
    handler: ({ ctx }) => tenant.disableSigning(ctx),
  }),
  route({
    method: "PUT",
    path: "/v1/admin/ip-allowlist",
    auth: admin,
    tag,
    summary:
      "Replaces the IP allowlist (CIDRs or single addresses, stored normalised; an empty list removes it). Fails closed: from the next request on, calls from outside it answer 403, including this one.",
    body: IpAllowlistInput,
    response: IpAllowlistView,
    errors: ["VALIDATION_ERROR"],
    handler: ({ ctx, body }) => tenant.setIpAllowlist(ctx, body),
  }),
  route({
    method: "PUT",
    path: "/v1/admin/country-policy",
    auth: admin,
    tag,
    summary:
      "Sets the allowed and blocked countries applied at bind (ISO 3166-1 alpha-2, any case, stored upper case). An omitted list is left unchanged; an empty list removes that restriction.",
    body: CountryPolicyInput,
    response: CountryPolicyView,
    errors: ["VALIDATION_ERROR", "INVALID_COUNTRY_CODE"],
    handler: ({ ctx, body }) => tenant.setCountryPolicy(ctx, body),
  }),
  route({
    method: "POST",
    path: "/v1/admin/dpa/accept",
    auth: admin,
    tag,
    summary: "Records acceptance of the data processing agreement. The first acceptance stands; accepting again answers its time.",
    response: DpaAcceptedView,
    handler: ({ ctx }) => tenant.acceptDpa(ctx),
  }),
  route({
    method: "GET",
    path: "/v1/admin/tenant",
    auth: admin,
    tag,
    summary: "The organization and its policy, as an admin sees it (contact email included; never secrets).",
    response: AdminTenantView,
    handler: ({ ctx }) => tenant.getAdminTenant(ctx),
  }),
  route({
    method: "PATCH",
    path: "/v1/admin/tenant/policy",
    auth: admin,
    tag,
    summary: "Sets one or more policy flags (free-create gates and the four-eyes AML clear); answers the whole policy.",
    body: PolicyPatchInput,
    response: PolicyView,
    errors: ["VALIDATION_ERROR"],
    handler: ({ ctx, body }) => tenant.updatePolicy(ctx, body),
  }),
];
