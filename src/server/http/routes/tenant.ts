import * as org from "../../services/org";
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
  TenantView,
} from "../../services/org";
import { route } from "../route";
import type { RouteDef } from "../types";

const admin = { scope: "admin" } as const;

/** GET /v1/tenant: the posture any `read` key may see. */
export const tenantRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/tenant",
    auth: { scope: "read" },
    tag: "Tenant",
    summary: "The organization's posture: plan, signing, IP allowlist, country policy and policy flags.",
    response: TenantView,
    examples: {
      response: {
        organizationId: "0195a7c2-3b1e-7d40-8f2a-6c9e1b4d7a35",
        name: "Acme Wallet",
        environment: "sandbox",
        plan: { id: "builder", name: "Builder", limits: { requestsPerMinute: 120 } },
        kybStatus: "not_started",
        signingEnabled: true,
        ipAllowlist: { cidrs: ["203.0.113.0/24"] },
        countryPolicy: { allowedCountries: [], blockedCountries: ["KP"] },
        policy: {
          requireEmailProofBeforeFreeCreate: true,
          requirePhoneProofBeforeFreeCreate: false,
          requireKycBeforeFreeCreate: false,
          requireSecondApprovalToClearAml: true,
          walletCredentialCountry: false,
        },
        dpaAcceptedAt: "2025-03-01T10:00:00.000Z",
        createdAt: "2025-03-01T09:58:12.000Z",
      },
    },
    handler: ({ ctx }) => org.getTenant(ctx),
  }),
];

/** /v1/admin/*: signing, IP allowlist, country policy, DPA, tenant and policy (scope `admin`). */
export const tenantAdminRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/v1/admin/signing/enable",
    auth: admin,
    tag: "Admin",
    summary:
      "Turns HMAC request signing on and returns the signing secret once. Calling it again rotates the secret (the old one stops working at once).",
    response: SigningEnabledView,
    handler: ({ ctx }) => org.enableSigning(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/admin/signing/disable",
    auth: admin,
    tag: "Admin",
    summary: "Turns HMAC request signing off and discards the secret.",
    response: SigningDisabledView,
    handler: ({ ctx }) => org.disableSigning(ctx),
  }),
  route({
    method: "PUT",
    path: "/v1/admin/ip-allowlist",
    auth: admin,
    tag: "Admin",
    summary:
      "Replaces the IP allowlist (CIDRs or single addresses, stored normalised; an empty list removes it). Fails closed: from the next request on, calls from outside it answer 403, including this one.",
    body: IpAllowlistInput,
    response: IpAllowlistView,
    errors: ["VALIDATION_ERROR"],
    handler: ({ ctx, body }) => org.setIpAllowlist(ctx, body),
  }),
  route({
    method: "PUT",
    path: "/v1/admin/country-policy",
    auth: admin,
    tag: "Admin",
    summary:
      "Sets the allowed and blocked countries applied at bind (ISO 3166-1 alpha-2, any case, stored upper case). An omitted list is left unchanged; an empty list removes that restriction.",
    body: CountryPolicyInput,
    response: CountryPolicyView,
    errors: ["VALIDATION_ERROR", "INVALID_COUNTRY_CODE"],
    handler: ({ ctx, body }) => org.setCountryPolicy(ctx, body),
  }),
  route({
    method: "POST",
    path: "/v1/admin/dpa/accept",
    auth: admin,
    tag: "Admin",
    summary: "Records acceptance of the data processing agreement. The first acceptance stands; accepting again answers its time.",
    response: DpaAcceptedView,
    handler: ({ ctx }) => org.acceptDpa(ctx),
  }),
  route({
    method: "GET",
    path: "/v1/admin/tenant",
    auth: admin,
    tag: "Admin",
    summary: "The organization and its policy, as an admin sees it (contact email included; never secrets).",
    response: AdminTenantView,
    handler: ({ ctx }) => org.getAdminTenant(ctx),
  }),
  route({
    method: "PATCH",
    path: "/v1/admin/tenant/policy",
    auth: admin,
    tag: "Admin",
    summary: "Sets one or more policy flags (free-create gates and the four-eyes AML clear); answers the whole policy.",
    body: PolicyPatchInput,
    response: PolicyView,
    errors: ["VALIDATION_ERROR"],
    handler: ({ ctx, body }) => org.updatePolicy(ctx, body),
  }),
];
