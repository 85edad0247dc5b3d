export { listPeople, personSummary } from "./people";
export { KycStatusName, ListPeopleQuery, PeopleList, PersonSummary } from "./people.schema";
