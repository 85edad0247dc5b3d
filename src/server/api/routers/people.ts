import { getPersonDetail, ListPeopleQuery, listPeople, PersonRef } from "../../services/people";
import { consoleProcedure, router } from "../trpc";

/** People (KYC subjects): the read behind GET /v1/admin/people. */
export const peopleRouter = router({
  list: consoleProcedure("operator")
    .input(ListPeopleQuery)
    .query(({ ctx, input }) => listPeople(ctx.svc, input)),
  /** The person page: KYC, flags, screenings, AML cases, bindings and the audit entries about them. */
  get: consoleProcedure("operator")
    .input(PersonRef)
    .query(({ ctx, input }) => getPersonDetail(ctx.svc, input.id)),
});
