import * as tenant from "../../services/org";
import { changeConsolePassword } from "../../services/org";
import { whoAmI } from "../../services/ops/index";
import { ChangeConsolePasswordInput } from "../../services/org";
import { CountryPolicyInput, IpAllowlistInput, PolicyPatchInput } from "../../services/org";
import { consoleProcedure, router } from "../trpc";


/** The organization's settings: the same service functions as /v1/admin/*. */
export const settingsRouter = router({
  get: consoleProcedure("admin").query(({ ctx }) => tenant.getAdminTenant(ctx.svc)),
  /** The caller's address as the service sees it, shown beside the allowlist. */
  clientIp: consoleProcedure("admin").query(({ ctx }) => whoAmI(ctx.svc)),
  enableSigning: consoleProcedure("admin").mutation(({ ctx }) => tenant.enableSigning(ctx.svc)),
  disableSigning: consoleProcedure("admin").mutation(({ ctx }) => tenant.disableSigning(ctx.svc)),
  setIpAllowlist: consoleProcedure("admin").input(IpAllowlistInput).mutation(({ ctx, input }) => tenant.setIpAllowlist(ctx.svc, input)),
  setCountryPolicy: consoleProcedure("admin").input(CountryPolicyInput).mutation(({ ctx, input }) => tenant.setCountryPolicy(ctx.svc, input)),
  updatePolicy: consoleProcedure("admin").input(PolicyPatchInput).mutation(({ ctx, input }) => tenant.updatePolicy(ctx.svc, input)),
  acceptDpa: consoleProcedure("admin").mutation(({ ctx }) => tenant.acceptDpa(ctx.svc)),
  changePassword: consoleProcedure("owner").input(ChangeConsolePasswordInput).mutation(({ ctx, input }) => changeConsolePassword(ctx.svc, input)),
});
