import { dashboard } from "../../services/dashboard";
import { consoleProcedure, router } from "../trpc";

/** The console's landing page: the read behind GET /v1/admin/dashboard. */
export const dashboardRouter = router({
  get: consoleProcedure("viewer").query(({ ctx }) => dashboard(ctx.svc)),
});
