export { AccountDidInput, AccountRef, AccountView, FreeAccountCreated, FreeAccountInput, ListAccountsQuery, NameAvailable, NameAvailableQuery } from "./accounts.schema";
export { createFreeAccount, getAccount, listAccounts, nameAvailable, suspendAccount } from "./accounts";
export { BindChallenge, BindChallengeInput, BindConfirmInput, BindConfirmed, UnlockInput, Unlocked } from "./bind.schema";
export { bindChallenge, bindConfirm, unlockAccount } from "./bind";
export { verifyCredentialWithDidDocument } from "./credentials";
export { issuerDidDocument, orgDidDocument, personDidDocument } from "./did-documents";
