export { KycStatusName, ListPeopleQuery, PeopleList, PersonSummary } from "./people.schema";
export { listPeople, personSummary } from "./people";
