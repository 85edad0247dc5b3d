import { z } from "zod";
import * as aml from "../../services/aml";
import { AmlCaseParams, ApproveClearInput, ClearAmlInput, ConfirmAmlInput } from "../../services/aml";
import { consoleProcedure, router } from "../trpc";

/** The AML queue: the same service functions as /v1/aml/* and /v1/admin/aml, with the member as the four-eyes identity. */
export const amlRouter = router({
  queue: consoleProcedure("compliance_officer").query(({ ctx }) => aml.listOpenCases(ctx.svc)),
  overview: consoleProcedure("compliance_officer").query(({ ctx }) => aml.amlOverview(ctx.svc)),
  detail: consoleProcedure("compliance_officer")
    .input(AmlCaseParams)
    .query(({ ctx, input }) => aml.getCaseDetail(ctx.svc, input.caseId)),
  proposeClear: consoleProcedure("compliance_officer")
    .input(ClearAmlInput)
    .mutation(({ ctx, input }) => aml.proposeClear(ctx.svc, input)),
  approveClear: consoleProcedure("compliance_officer")
    .input(z.object({ caseId: AmlCaseParams.shape.caseId, body: ApproveClearInput }))
    .mutation(({ ctx, input }) => aml.approveClear(ctx.svc, input.caseId, input.body)),
  confirm: consoleProcedure("compliance_officer")
    .input(z.object({ caseId: AmlCaseParams.shape.caseId, body: ConfirmAmlInput }))
    .mutation(({ ctx, input }) => aml.confirmCase(ctx.svc, input.caseId, input.body)),
});
