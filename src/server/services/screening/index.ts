/** Sanctions/PEP screening and account labels: the API other services call. */

export { ListFormatError } from "./import";
export { importListFiles } from "./import-files";
export { syncKeyIndexes } from "./key-index";
export { diffListVersions, listListVersions } from "./list-versions";
export {
  ListDiffQuery,
  ListDiffView,
  ListUploadInput,
  ListVersionsQuery,
  ListVersionsView,
  UPLOAD_MAX_BYTES,
} from "./list-versions.schema";
export { getMonitoringRun, getMonitoringSetting, listMonitoringRuns, setMonitoringSetting } from "./monitoring";
export {
  MonitoringRunParams,
  MonitoringRunsQuery,
  MonitoringRunsView,
  MonitoringRunView,
  MonitoringSettingInput,
  MonitoringSettingView,
} from "./monitoring.schema";
export { enqueuePeriodicRuns } from "./monitoring-enqueue";
export { monitoringMetrics } from "./monitoring-metrics";
export { runMonitoring } from "./monitoring-runs";
export { rememberScreeningSubject, screeningSubjectUpsertSql } from "./monitoring-subjects";
export { addToDenylist, listDenylist, removeFromDenylist, screenAccountFor, screenApplicant } from "./requests";
export { ensureSandboxLists } from "./sandbox-lists";
export { screenPerson, screenPersonForWrite } from "./screen";
export {
  DenylistAddInput,
  DenylistEntryView,
  DenylistParams,
  DenylistRemovedView,
  DenylistView,
  ScreenAccountInput,
  ScreenAccountView,
  ScreenApplicantInput,
  ScreenApplicantView,
} from "./screening.schema";
export { uploadOrgList } from "./upload";
