export {
  AmlCaseList,
  AmlCaseParams,
  AmlCaseView,
  AmlHitEvidence,
  ApproveClearInput,
  CaseAgeing,
  ClearAmlInput,
  ClearAmlResult,
  ConfirmAmlInput,
  SEVERITIES,
  Severity,
} from "./aml.schema";
export { assignCase, reassignCase, takeNextCase, unassignCase } from "./assignment";
export { getCaseDetail } from "./case-detail";
export { verifyCaseExport } from "./case-export-verify";
export { OPEN_STATUSES } from "./case-records";
export { approveClear, confirmCase, listCases, proposeClear } from "./cases";
export {
  AddCommentInput,
  AmlCaseEventView,
  AmlCaseExport,
  AmlCaseTimeline,
  AmlCommentView,
  AmlSlaInput,
  AmlSlaView,
  AssignCaseInput,
  ConsoleListCasesQuery,
  ListCasesQuery,
  NextCaseInput,
  NextCaseResult,
  ReassignCaseInput,
  UnassignCaseInput,
} from "./casework.schema";
export { addComment } from "./comments";
export { composeEvidence, type EvidenceEntry, type EvidenceInput, evidenceMatches, evidenceSubjectText } from "./evidence";
export { type OpenCaseRead, recordScreeningHit, screeningHitWrites } from "./hits";
export { lockAmlSubject, recordKeyChange } from "./key-change-case";
export { notifyOverdueCases } from "./overdue";
export { amlOverview, riskOverview } from "./overview";
export { AdminAmlView, AdminRiskView } from "./overview.schema";
export {
  assess,
  assessRisk,
  decideRisk,
  isDisposableEmail,
  lockRiskDevice,
  planRisk,
  type RiskCounts,
  type RiskPlan,
  riskCountColumns,
} from "./risk";
export { RiskAssessInput, RiskAssessment, RiskDecision } from "./risk.schema";
export {
  readScreeningDetail,
  type ScreeningResultDetail,
  type StoredScreeningMatch,
  screeningDetailJson,
} from "./screening-detail";
export { countOverdue, DEFAULT_SLA_HOURS, getSla, setSla } from "./sla";
export { exportCase, getTimeline } from "./timeline";
