import * as kyc from "../../services/kyc";
import {
  CallbackParams,
  CallbackReceived,
  handleProviderCallback,
  KybStarted,
  KybStartInput,
  KycStarted,
  KycStartInput,
  KycStatusQuery,
  KycStatusView,
  OrganizationsView,
  SandboxCompleted,
  SandboxHostedInput,
  SandboxHostedParams,
  SandboxKycCompleteInput,
} from "../../services/kyc";
import { route } from "../route";

const kycWrite = { scope: "kyc_write" } as const;
const providerErrors = ["PROVIDER_FAILURE", "PROVIDER_UNAVAILABLE"] as const;

/** KYC, KYB, provider callbacks and the sandbox's hosted verification. */
export const kycRoutes = [
  route({
    method: "POST",
    path: "/v1/kyc/start",
    auth: kycWrite,
    tag: "KYC",
    summary:
      "Starts identity verification at the provider (person-first when accountDid is omitted); redirectUrl is honoured only under /identity on this host.",
    body: KycStartInput,
    response: KycStarted,
    idempotent: true,
    errors: ["NOT_FOUND", "CONFLICT", "RATE_LIMITED", ...providerErrors],
    handler: ({ ctx, body }) => kyc.startKyc(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/kyc/status",
    auth: kycWrite,
    tag: "KYC",
    summary:
      "A person's KYC status; refresh=1 pulls the review from the provider while not approved (not on every poll). An approved person gets a single-use create token.",
    query: KycStatusQuery,
    response: KycStatusView,
    errors: ["NOT_FOUND", ...providerErrors],
    handler: ({ ctx, query }) => kyc.kycStatus(ctx, query),
  }),
  route({
    method: "POST",
    path: "/v1/kyb/start",
    auth: kycWrite,
    tag: "KYC",
    summary: "Starts verification of the organization as a legal entity; its DID document shows the KYB status.",
    body: KybStartInput,
    response: KybStarted,
    errors: ["CONFLICT", ...providerErrors],
    handler: ({ ctx, body }) => kyc.startKyb(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/admin/organizations",
    auth: { scope: "admin" },
    tag: "Admin",
    summary: "The organization's KYB status and the businesses it submitted for verification.",
    response: OrganizationsView,
    handler: ({ ctx }) => kyc.listOrganizations(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/kyc/callbacks/{provider}",
    auth: "public",
    tag: "KYC",
    summary:
      "Review notifications from a KYC provider, verified over the raw body with the provider's signature scheme; applied once per provider event id.",
    params: CallbackParams,
    response: CallbackReceived,
    errors: ["UNAUTHORIZED", "NOT_FOUND"],
    handler: ({ params, state }) => handleProviderCallback(state.db, params.provider, state.req.body, state.req.headers),
  }),
  route({
    method: "POST",
    path: "/v1/sandbox/kyc/complete",
    auth: kycWrite,
    tag: "Sandbox",
    sandboxOnly: true,
    summary: "Has the sandbox provider deliver a review for the person's latest sandbox session, exactly as the hosted page does.",
    body: SandboxKycCompleteInput,
    response: SandboxCompleted,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, body }) => kyc.completeSandboxKyc(ctx, body),
  }),
  route({
    method: "POST",
    path: "/v1/sandbox/kyc/hosted/{applicantId}",
    auth: "public",
    tag: "Sandbox",
    sandboxOnly: true,
    summary: "The sandbox verification page's submit: the applicant's chosen test document becomes a signed provider callback.",
    params: SandboxHostedParams,
    body: SandboxHostedInput,
    response: SandboxCompleted,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ params, body, state }) => kyc.completeSandboxHosted(state.db, params.applicantId, body.outcome, body.documentNumber),
  }),
];
