import { listOrganizations } from "../../services/kyc";
import { consoleProcedure, router } from "../trpc";

/** KYB organizations: the read behind GET /v1/admin/organizations. */
export const organizationsRouter = router({
  list: consoleProcedure("operator").query(({ ctx }) => listOrganizations(ctx.svc)),
});
