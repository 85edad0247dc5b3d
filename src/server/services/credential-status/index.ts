export {
  applyComplianceStatus,
  liftLocked,
  lockBindings,
  revokeLocked,
  revokeOrganizationBindings,
  suspendLocked,
} from "./binding-status";
export { BitstringStatusListCredential, CredentialStatusEntry, StatusListParams } from "./credential-status.schema";
export {
  DRAWS_BEFORE_NEW_LIST,
  drawStatusPositions,
  pickStatusPositions,
  publishedStatusOf,
  type StatusCandidates,
  type StatusPosition,
  setStatusBit,
  statusCandidates,
  statusEntryJson,
  statusPositionSql,
  takenStatusSql,
} from "./lists";
export { publishedStatusList, STATUS_LIST_MAX_AGE_SEC } from "./publish";
export {
  publishedStatusListToken,
  revocationStatusReference,
  STATUS_LIST_TOKEN_MEDIA_TYPE,
  STATUS_LIST_TOKEN_TTL_SEC,
} from "./token-status-list";
