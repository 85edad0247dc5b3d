export { listPeople, personSummary } from "./people";
export { KycStatusName, ListPeopleQuery, PeopleList, PersonRef, PersonSummary } from "./people.schema";
export { getPersonDetail } from "./person-detail";
