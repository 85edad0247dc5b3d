import * as risk from "../../services/aml";
import { AdminRiskView, RiskAssessInput, RiskAssessment } from "../../services/aml";
import { route } from "../route";
import type { RouteDef } from "../types";

/**
 * Anti-abuse risk. Scope `accounts_write` (the contract leaves it open): the call writes a risk
 * event and guards account creation, so it belongs with the writes a tenant's sign-up backend
 * already holds; `read` keys (dashboards) must not be able to inflate velocity counts.
 */
export const riskRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/v1/risk/assess",
    auth: { scope: "accounts_write" },
    tag: "Risk",
    summary:
      "Anti-abuse risk of an action before free create or bind: velocity per device fingerprint (hashed), client IP and organization, one device shared by several people or accounts, disposable email domains. Answers a 0-100 score, allow/review/deny and the reasons; recorded as a risk event.",
    body: RiskAssessInput,
    response: RiskAssessment,
    handler: ({ ctx, body }) => risk.assess(ctx, body),
  }),
];

/** GET /v1/admin/risk: velocity, shared devices and recent risk events (scope `admin`). */
export const riskAdminRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/risk",
    auth: { scope: "admin" },
    tag: "Admin",
    summary: "Risk velocity over the last minute, hour and day, devices shared by several people or accounts, and recent risk events.",
    response: AdminRiskView,
    handler: ({ ctx }) => risk.riskOverview(ctx),
  }),
];
