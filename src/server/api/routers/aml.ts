import { z } from "zod";
import * as aml from "../../services/aml";
import {
  AddCommentInput,
  AmlCaseParams,
  AmlSlaInput,
  ApproveClearInput,
  AssignCaseInput,
  ClearAmlInput,
  ConfirmAmlInput,
  ConsoleListCasesQuery,
  NextCaseInput,
  ReassignCaseInput,
  UnassignCaseInput,
} from "../../services/aml";
import { consoleProcedure, router } from "../trpc";

const caseId = AmlCaseParams.shape.caseId;
const withBody = <T extends z.ZodType>(body: T) => z.object({ caseId, body });

/** The AML queue: the same service functions as /v1/aml/* and /v1/admin/aml, with the member as the four-eyes identity. */
export const amlRouter = router({
  queue: consoleProcedure("compliance_officer")
    .input(ConsoleListCasesQuery)
    .query(({ ctx, input }) => aml.listCases(ctx.svc, input ?? { status: "open", limit: 200 })),
  overview: consoleProcedure("compliance_officer").query(({ ctx }) => aml.amlOverview(ctx.svc)),
  detail: consoleProcedure("compliance_officer")
    .input(AmlCaseParams)
    .query(({ ctx, input }) => aml.getCaseDetail(ctx.svc, input.caseId)),
  timeline: consoleProcedure("compliance_officer")
    .input(AmlCaseParams)
    .query(({ ctx, input }) => aml.getTimeline(ctx.svc, input.caseId)),
  exportCase: consoleProcedure("compliance_officer")
    .input(AmlCaseParams)
    .mutation(({ ctx, input }) => aml.exportCase(ctx.svc, input.caseId)),
  proposeClear: consoleProcedure("compliance_officer")
    .input(ClearAmlInput)
    .mutation(({ ctx, input }) => aml.proposeClear(ctx.svc, input)),
  approveClear: consoleProcedure("compliance_officer")
    .input(withBody(ApproveClearInput))
    .mutation(({ ctx, input }) => aml.approveClear(ctx.svc, input.caseId, input.body)),
  confirm: consoleProcedure("compliance_officer")
    .input(withBody(ConfirmAmlInput))
    .mutation(({ ctx, input }) => aml.confirmCase(ctx.svc, input.caseId, input.body)),
  assign: consoleProcedure("compliance_officer")
    .input(withBody(AssignCaseInput))
    .mutation(({ ctx, input }) => aml.assignCase(ctx.svc, input.caseId, input.body)),
  reassign: consoleProcedure("compliance_officer")
    .input(withBody(ReassignCaseInput))
    .mutation(({ ctx, input }) => aml.reassignCase(ctx.svc, input.caseId, input.body)),
  unassign: consoleProcedure("compliance_officer")
    .input(withBody(UnassignCaseInput))
    .mutation(({ ctx, input }) => aml.unassignCase(ctx.svc, input.caseId, input.body)),
  next: consoleProcedure("compliance_officer")
    .input(NextCaseInput)
    .mutation(({ ctx, input }) => aml.takeNextCase(ctx.svc, input)),
  comment: consoleProcedure("compliance_officer")
    .input(withBody(AddCommentInput))
    .mutation(({ ctx, input }) => aml.addComment(ctx.svc, input.caseId, input.body)),
  sla: consoleProcedure("compliance_officer").query(({ ctx }) => aml.getSla(ctx.svc)),
  updateSla: consoleProcedure("admin")
    .input(AmlSlaInput)
    .mutation(({ ctx, input }) => aml.setSla(ctx.svc, input)),
});
