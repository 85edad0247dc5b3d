import * as audit from "../../services/audit";
import { AuditListQuery, ExportJobParams, ExportListQuery, ExportRequestInput } from "../../services/audit";
import { consoleProcedure, router } from "../trpc";

/** Audit browsing and verification, signed exports: compliance officers and up (like the compliance_export scope). */
export const auditRouter = router({
  list: consoleProcedure("compliance_officer")
    .input(AuditListQuery)
    .query(({ ctx, input }) => audit.listAudit(ctx.svc, input)),
  verify: consoleProcedure("compliance_officer").mutation(({ ctx }) => audit.verifyAudit(ctx.svc)),
  exports: consoleProcedure("compliance_officer")
    .input(ExportListQuery)
    .query(({ ctx, input }) => audit.listExports(ctx.svc, input)),
  requestExport: consoleProcedure("compliance_officer")
    .input(ExportRequestInput)
    .mutation(({ ctx, input }) => audit.requestExport(ctx.svc, input)),
  getExport: consoleProcedure("compliance_officer")
    .input(ExportJobParams)
    .query(({ ctx, input }) => audit.getExport(ctx.svc, input.jobId)),
});
