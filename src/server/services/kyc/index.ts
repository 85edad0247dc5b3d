export {
  type KycCreateTokenRow,
  kycCreateTokenColumn,
  spendKycCreateTokenSql,
  unspendKycCreateTokenSql,
  usableKycCreateToken,
} from "./create-tokens";
export { DuplicatePolicy, DuplicatePolicyInput, getDuplicatePolicy, setDuplicatePolicy } from "./duplicate-policy";
export { listOrganizations, startKyb } from "./kyb";
export {
  CallbackParams,
  CallbackReceived,
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
} from "./kyc.schema";
export { handleProviderCallback } from "./review";
export { completeSandboxHosted, completeSandboxKyc, kycStatus, startKyc } from "./sessions";
export { pairwiseIdOf } from "./unique-person";
