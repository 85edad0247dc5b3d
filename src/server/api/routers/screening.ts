import * as screening from "../../services/screening";
import {
  ListDiffQuery,
  ListUploadInput,
  ListVersionsQuery,
  MonitoringRunParams,
  MonitoringRunsQuery,
  MonitoringSettingInput,
} from "../../services/screening";
import { consoleProcedure, router } from "../trpc";

/** Screening lists and ongoing screening: the same service functions as their /v1 twins. */
export const screeningRouter = router({
  listVersions: consoleProcedure("compliance_officer")
    .input(ListVersionsQuery)
    .query(({ ctx, input }) => screening.listListVersions(ctx.svc, input)),
  listDiff: consoleProcedure("compliance_officer")
    .input(ListDiffQuery)
    .query(({ ctx, input }) => screening.diffListVersions(ctx.svc, input)),
  runs: consoleProcedure("compliance_officer")
    .input(MonitoringRunsQuery)
    .query(({ ctx, input }) => screening.listMonitoringRuns(ctx.svc, input)),
  run: consoleProcedure("compliance_officer")
    .input(MonitoringRunParams)
    .query(({ ctx, input }) => screening.getMonitoringRun(ctx.svc, input.runId)),
  uploadList: consoleProcedure("compliance_officer")
    .input(ListUploadInput)
    .mutation(({ ctx, input }) => screening.uploadOrgList(ctx.svc, input)),
  monitoring: consoleProcedure("compliance_officer").query(({ ctx }) => screening.getMonitoringSetting(ctx.svc)),
  setMonitoring: consoleProcedure("admin")
    .input(MonitoringSettingInput)
    .mutation(({ ctx, input }) => screening.setMonitoringSetting(ctx.svc, input)),
});
