import { ListPeopleQuery, listPeople } from "../../services/people";
import { consoleProcedure, router } from "../trpc";

/** People (KYC subjects): the read behind GET /v1/admin/people. */
export const peopleRouter = router({
  list: consoleProcedure("operator")
    .input(ListPeopleQuery)
    .query(({ ctx, input }) => listPeople(ctx.svc, input)),
});
