import { listPeople } from "../../services/people";
import { amlOverview, riskOverview } from "../../services/aml";
import { dashboard } from "../../services/dashboard";
import { ListPeopleQuery, PeopleList } from "../../services/people";
import { AdminAmlView, AdminRiskView } from "../../services/aml";
import { DashboardView } from "../../services/dashboard";
import { route } from "../route";
import type { RouteDef } from "../types";

const admin = { scope: "admin" } as const;
const tag = "Admin";

/** Admin reads of people, AML alerts, risk and the dashboard (scope `admin`, as every /v1/admin/* read). */
export const adminListRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/people",
    auth: admin,
    tag,
    summary: "People (KYC subjects) of the organization, newest first, with KYC status, flags and risk score; filter by kycStatus or flagged, page on with before = nextBefore.",
    query: ListPeopleQuery,
    response: PeopleList,
    handler: ({ ctx, query }) => listPeople(ctx, query),
  }),
  route({
    method: "GET",
    path: "/v1/admin/aml",
    auth: admin,
    tag,
    summary: "PEP and sanctions alerts (flagged people with their open case), the open case queue, and recent AML audit entries.",
    response: AdminAmlView,
    handler: ({ ctx }) => amlOverview(ctx),
  }),
  route({
    method: "GET",
    path: "/v1/admin/risk",
    auth: admin,
    tag,
    summary: "Risk velocity over the last minute, hour and day, devices shared by several people or accounts, and recent risk events.",
    response: AdminRiskView,
    handler: ({ ctx }) => riskOverview(ctx),
  }),
  route({
    method: "GET",
    path: "/v1/admin/dashboard",
    auth: admin,
    tag,
    summary: "Aggregates: accounts by lifecycle, people by KYC status, open AML cases by priority, risk decisions of the last day, recent audit entries.",
    response: DashboardView,
    handler: ({ ctx }) => dashboard(ctx),
  }),
];
