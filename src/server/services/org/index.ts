export { ApiKeyIdParams, ApiKeyList, MintApiKeyInput, MintedApiKey, RevokedApiKey } from "./api-keys.schema";
export { authenticateApiKey, listApiKeys, mintApiKey, revokeApiKey } from "./api-keys";
export { ChangeConsolePasswordInput } from "./console-auth.schema";
export { type ConsoleSessionClaims, changeConsolePassword, completeConsoleSignIn, consoleSession, resolveConsoleSession, startConsoleSignIn } from "./console-auth";
export { AddMemberInput, MemberEmailParams, MemberList, MemberView, UpdateMemberInput } from "./members.schema";
export { addMember, listMembers, removeMember, updateMember } from "./members";
export { type ProvisionInput, type Provisioned, provisionOrganization } from "./organizations";
export { AdminTenantView, CountryPolicyInput, CountryPolicyView, DpaAcceptedView, IpAllowlistInput, IpAllowlistView, PolicyPatchInput, PolicyView, SigningDisabledView, SigningEnabledView, TenantView } from "./tenant.schema";
export { acceptDpa, disableSigning, enableSigning, getAdminTenant, getTenant, setCountryPolicy, setIpAllowlist, updatePolicy } from "./tenant";
