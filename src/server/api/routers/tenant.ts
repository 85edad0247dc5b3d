import * as tenant from "../../services/org";
import { PolicyPatchInput } from "../../services/org";
import { consoleProcedure, router } from "../trpc";

export const tenantRouter = router({
  get: consoleProcedure("viewer").query(({ ctx }) => tenant.getTenant(ctx.svc)),
  updatePolicy: consoleProcedure("admin").input(PolicyPatchInput).mutation(({ ctx, input }) => tenant.updatePolicy(ctx.svc, input)),
});
