export { actorNames, auditTrail, describeAudit, listAudit, mayReadAmlDetail, readableBy } from "./activity";
export {
  AuditActivityView,
  AuditEntryView,
  AuditListQuery,
  AuditListView,
  ExportCreatedView,
  ExportJobParams,
  ExportJobView,
  ExportListQuery,
  ExportListView,
  ExportRequestInput,
  VerifyResultView,
} from "./audit.schema";
export { appendAudit, auditEntryView } from "./chain";
export { signCheckpoint } from "./checkpoint-proof";
export { checkpointProofProblem } from "./export-verify";
export { getExport, listExports, requestExport, runExportJobs, verifyExportArtifact } from "./exports";
export { isFreeText } from "./free-text";
export {
  appendAuditGrouped,
  failedGroupedWrite,
  type GroupedWrite,
  groupCommitStats,
  lostToConcurrentWrite,
  uniqueKeyTaken,
} from "./group-commit";
export { verifyAudit, verifyChain } from "./verify";
