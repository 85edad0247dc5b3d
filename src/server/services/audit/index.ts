export {
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
export { appendAudit, auditEntryView, listAudit, verifyAudit } from "./chain";
export { getExport, listExports, requestExport, runExportJobs } from "./exports";
