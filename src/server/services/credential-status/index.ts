export {
  applyComplianceStatus,
  liftLocked,
  lockBindings,
  revokeLocked,
  revokeOrganizationBindings,
  suspendLocked,
} from "./binding-status";
export { BitstringStatusListCredential, CredentialStatusEntry, StatusListParams } from "./credential-status.schema";
export { allocateStatus, publishedStatusOf, setStatusBit } from "./lists";
export { publishedStatusList, STATUS_LIST_MAX_AGE_SEC } from "./publish";
