export { samePerson } from "./acting-person";
export { authenticateApiKey, listApiKeys, mintApiKey, revokeApiKey } from "./api-keys";
export { ApiKeyIdParams, ApiKeyList, MintApiKeyInput, MintedApiKey, RevokedApiKey } from "./api-keys.schema";
export {
  type ConsoleSessionClaims,
  changeConsolePassword,
  completeConsoleSignIn,
  consoleSession,
  resolveConsoleSession,
  startConsoleSignIn,
} from "./console-auth";
export { ChangeConsolePasswordInput } from "./console-auth.schema";
export { addMember, listMembers, removeMember, updateMember } from "./members";
export { AddMemberInput, MemberEmailParams, MemberList, MemberView, UpdateMemberInput } from "./members.schema";
export { type Provisioned, type ProvisionInput, provisionOrganization } from "./organizations";
export {
  acceptDpa,
  disableSigning,
  enableSigning,
  getAdminTenant,
  getTenant,
  setCountryPolicy,
  setIpAllowlist,
  updatePolicy,
} from "./tenant";
export {
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
} from "./tenant.schema";
