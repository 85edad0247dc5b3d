export { spendKycCreateToken } from "./create-tokens";
export { listOrganizations, startKyb } from "./kyb";
export { CallbackParams, CallbackReceived, KybStartInput, KybStarted, KycStartInput, KycStarted, KycStatusQuery, KycStatusView, OrganizationsView, SandboxCompleted, SandboxHostedInput, SandboxHostedParams, SandboxKycCompleteInput } from "./kyc.schema";
export { handleProviderCallback } from "./review";
export { completeSandboxHosted, completeSandboxKyc, kycStatus, startKyc } from "./sessions";
