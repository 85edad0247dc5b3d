export { samePerson } from "./acting-person";
export { getApiKeyDetail } from "./api-key-detail";
export { authenticateApiKey, listApiKeys, mintApiKey, revokeApiKey } from "./api-keys";
export { ApiKeyIdParams, ApiKeyList, MintApiKeyInput, MintedApiKey, RevokedApiKey } from "./api-keys.schema";
export {
  type ConsoleSessionClaims,
  changeConsolePassword,
  completeConsoleSignIn,
  consoleSession,
  credentialStatus,
  resolveConsoleSession,
  startConsoleSignIn,
} from "./console-auth";
export { ChangeConsolePasswordInput } from "./console-auth.schema";
export { completePasskeySignIn, completeTicketSignIn, passkeySignInOptions, startPasswordSignIn } from "./console-auth-member";
export { endSignedOutSession, listOwnSessions, revokeOwnSession, signedInWithOwnCredentials } from "./console-auth-sessions";
export { type ErasureReceipt, eraseOrganization } from "./erase";
export {
  addMember,
  endMemberSessions,
  listMembers,
  listMembersForConsole,
  removeMember,
  startOwnCredentialsSetup,
  updateMember,
} from "./members";
export { AddMemberInput, MemberEmailParams, MemberList, MemberView, UpdateMemberInput } from "./members.schema";
export {
  acceptInvitationWithPasskey,
  acceptInvitationWithPassword,
  invitationPasskeyOptions,
  invitationTotpSecret,
  resendInvitation,
  viewInvitation,
} from "./members-invitations";
export { type Provisioned, type ProvisionInput, provisionOrganization } from "./organizations";
export { listOwnCredentials, removeOwnCredential } from "./own-credentials";
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
