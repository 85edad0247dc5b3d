import { AttestationSettingsInput, getAttestationSettings, setAttestationSettings } from "../../services/attestations";
import { whoAmI } from "../../services/ops";
import * as org from "../../services/org";
import { ChangeConsolePasswordInput, CountryPolicyInput, IpAllowlistInput, PolicyPatchInput } from "../../services/org";
import { consoleProcedure, router } from "../trpc";

/** The organization: its posture for every member, and its settings (the same service functions as /v1/admin/*) for admins. */
export const tenantRouter = router({
  get: consoleProcedure("viewer").query(({ ctx }) => org.getTenant(ctx.svc)),
  settings: consoleProcedure("admin").query(({ ctx }) => org.getAdminTenant(ctx.svc)),
  /** The caller's address as the service sees it, shown beside the allowlist. */
  clientIp: consoleProcedure("admin").query(({ ctx }) => whoAmI(ctx.svc)),
  enableSigning: consoleProcedure("admin").mutation(({ ctx }) => org.enableSigning(ctx.svc)),
  disableSigning: consoleProcedure("admin").mutation(({ ctx }) => org.disableSigning(ctx.svc)),
  setIpAllowlist: consoleProcedure("admin")
    .input(IpAllowlistInput)
    .mutation(({ ctx, input }) => org.setIpAllowlist(ctx.svc, input)),
  setCountryPolicy: consoleProcedure("admin")
    .input(CountryPolicyInput)
    .mutation(({ ctx, input }) => org.setCountryPolicy(ctx.svc, input)),
  updatePolicy: consoleProcedure("admin")
    .input(PolicyPatchInput)
    .mutation(({ ctx, input }) => org.updatePolicy(ctx.svc, input)),
  acceptDpa: consoleProcedure("admin").mutation(({ ctx }) => org.acceptDpa(ctx.svc)),
  /** GET and PUT /v1/admin/attestations' twins: publishing the organization's bindings on chain. */
  attestations: consoleProcedure("admin").query(({ ctx }) => getAttestationSettings(ctx.svc)),
  setAttestations: consoleProcedure("admin")
    .input(AttestationSettingsInput)
    .mutation(({ ctx, input }) => setAttestationSettings(ctx.svc, input)),
  changePassword: consoleProcedure("owner")
    .input(ChangeConsolePasswordInput)
    .mutation(({ ctx, input }) => org.changeConsolePassword(ctx.svc, input)),
});
