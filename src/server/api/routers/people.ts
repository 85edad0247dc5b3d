import * as lists from "../../services/admin-lists";
import * as kyb from "../../services/kyb";
import { ListPeopleQuery } from "../../schemas/admin-lists";
import { consoleProcedure, router } from "../trpc";

/** People (KYC subjects), KYB organizations, risk and the dashboard: the reads behind /v1/admin/*. */
export const peopleRouter = router({
  list: consoleProcedure("operator").input(ListPeopleQuery).query(({ ctx, input }) => lists.listPeople(ctx.svc, input)),
});

export const organizationsRouter = router({
  list: consoleProcedure("operator").query(({ ctx }) => kyb.listOrganizations(ctx.svc)),
});

export const riskRouter = router({
  overview: consoleProcedure("compliance_officer").query(({ ctx }) => lists.riskOverview(ctx.svc)),
});

export const dashboardRouter = router({
  get: consoleProcedure("viewer").query(({ ctx }) => lists.dashboard(ctx.svc)),
});
