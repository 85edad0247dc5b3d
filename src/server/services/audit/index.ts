export { actorNames, auditTrail, describeAudit, listAudit } from "./activity";
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
export { appendAudit, auditEntryView, verifyAudit } from "./chain";
export { signCheckpoint } from "./checkpoint-proof";
export { getExport, listExports, requestExport, runExportJobs, verifyExportArtifact } from "./exports";
