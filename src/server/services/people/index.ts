export { exportPerson, PERSON_EXPORT_FORMAT, PersonExport, verifyPersonExport } from "./access-export";
export {
  erasedInExport,
  eraseUnlessHeld,
  erasureHolds,
  getErasure,
  replayErasures,
  requestErasure,
  runDueErasures,
  withdrawErasure,
} from "./erasure";
export { ConsoleEraseInput, consoleErasure, eraseFromConsole } from "./erasure-console";
export { listPeople, personSummary } from "./people";
export {
  KycStatusName,
  ListPeopleQuery,
  PeopleList,
  PersonErased,
  PersonErasureView,
  PersonPathParams,
  PersonRef,
  PersonSummary,
} from "./people.schema";
export { migratePersonData, migratePersonDataBatch, personDataMigrationJob, resealSubject } from "./person-data-migration";
export { getPersonDetail } from "./person-detail";
export { getRetention, RetentionSettings, RetentionSettingsInput, setRetention } from "./retention";
export { previewRetention, RetentionPlanView, retentionPlan, runRetention, runRetentionPolicies } from "./retention-run";
