import { riskOverview } from "../../services/aml";
import { consoleProcedure, router } from "../trpc";

/** Anti-abuse risk: the read behind GET /v1/admin/risk. */
export const riskRouter = router({
  overview: consoleProcedure("compliance_officer").query(({ ctx }) => riskOverview(ctx.svc)),
});
