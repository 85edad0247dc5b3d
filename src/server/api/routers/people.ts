import { listPeople } from "../../services/people";
import { riskOverview } from "../../services/aml";
import { dashboard } from "../../services/dashboard";
import * as kyb from "../../services/kyc";
import { ListPeopleQuery } from "../../services/people";
import { consoleProcedure, router } from "../trpc";

/** People (KYC subjects), KYB organizations, risk and the dashboard: the reads behind /v1/admin/*. */
export const peopleRouter = router({
  list: consoleProcedure("operator").input(ListPeopleQuery).query(({ ctx, input }) => listPeople(ctx.svc, input)),
});

export const organizationsRouter = router({
  list: consoleProcedure("operator").query(({ ctx }) => kyb.listOrganizations(ctx.svc)),
});

export const riskRouter = router({
  overview: consoleProcedure("compliance_officer").query(({ ctx }) => riskOverview(ctx.svc)),
});

export const dashboardRouter = router({
  get: consoleProcedure("viewer").query(({ ctx }) => dashboard(ctx.svc)),
});
