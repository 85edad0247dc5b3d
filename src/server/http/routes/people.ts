import { ListPeopleQuery, listPeople, PeopleList } from "../../services/people";
import { route } from "../route";
import type { RouteDef } from "../types";

/** GET /v1/admin/people (scope `admin`, as every /v1/admin/* read). */
export const peopleRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/people",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "People (KYC subjects) of the organization, newest first, with KYC status, flags and risk score; filter by kycStatus or flagged, page on with before = nextBefore.",
    query: ListPeopleQuery,
    response: PeopleList,
    handler: ({ ctx, query }) => listPeople(ctx, query),
  }),
];
