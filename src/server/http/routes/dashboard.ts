import { DashboardView, dashboard } from "../../services/dashboard";
import { route } from "../route";
import type { RouteDef } from "../types";

/** GET /v1/admin/dashboard (scope `admin`). */
export const dashboardRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/dashboard",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "Aggregates: accounts by lifecycle, people by KYC status, open AML cases by priority, risk decisions of the last day, recent audit entries.",
    response: DashboardView,
    handler: ({ ctx }) => dashboard(ctx),
  }),
];
