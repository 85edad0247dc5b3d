export {
  AmlCaseList,
  AmlCaseParams,
  AmlCaseView,
  ApproveClearInput,
  ClearAmlInput,
  ClearAmlResult,
  ConfirmAmlInput,
  SEVERITIES,
  Severity,
} from "./aml.schema";
export { getCaseDetail } from "./case-detail";
export { OPEN_STATUSES } from "./case-records";
export { approveClear, confirmCase, listOpenCases, proposeClear } from "./cases";
export { recordScreeningHit } from "./hits";
export { amlOverview, riskOverview } from "./overview";
export { AdminAmlView, AdminRiskView } from "./overview.schema";
export { assess, assessRisk, isDisposableEmail } from "./risk";
export { RiskAssessInput, RiskAssessment, RiskDecision } from "./risk.schema";
