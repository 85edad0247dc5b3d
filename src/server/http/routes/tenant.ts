import * as tenant from "../../services/org";
import { TenantView } from "../../services/org";
import { route } from "../route";

export const tenantRoutes = [
  route({
    method: "GET",
    path: "/v1/tenant",
    auth: { scope: "read" },
    tag: "Tenant",
    summary: "The organization's posture: plan, signing, IP allowlist, country policy and policy flags.",
    response: TenantView,
    handler: ({ ctx }) => tenant.getTenant(ctx),
  }),
];
