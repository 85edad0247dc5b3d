export { getAccountDetail } from "./account-detail";
export { getAccount, listAccounts, nameAvailable, suspendAccount } from "./accounts";
export {
  AccountDidInput,
  AccountRef,
  AccountView,
  FreeAccountCreated,
  FreeAccountInput,
  ListAccountsQuery,
  NameAvailable,
  NameAvailableQuery,
} from "./accounts.schema";
export { bindChallenge, bindConfirm } from "./bind";
export { BindChallenge, BindChallengeInput, BindConfirmed, BindConfirmInput, Unlocked, UnlockInput } from "./bind.schema";
export { createBindSession, getBindSession, hostedBindChallenge, hostedBindConfirm, viewHostedBind } from "./bind-sessions";
export {
  BindSessionCreated,
  BindSessionInput,
  BindSessionParams,
  BindSessionView,
  HostedBindConfirmed,
  HostedBindConfirmInput,
  HostedBindInput,
  HostedBindView,
} from "./bind-sessions.schema";
export { getBinding } from "./binding";
export { BindingView } from "./binding.schema";
export { IssuerDidDocument, OrganizationDidDocument, OrgDidParams, PersonDidDocument, PersonDidParams } from "./did.schema";
export { issuerDidDocument, orgDidDocument, personDidDocument } from "./did-documents";
export { createFreeAccount } from "./free-create";
export { watchBindingKeys } from "./key-watch";
export { recoverPendingCreates } from "./pending-creates";
export { revokeBinding } from "./revoke";
export { BindingParams, BindingRevoked, RevokeBindingInput } from "./revoke.schema";
export { unlockAccount } from "./unlock";
