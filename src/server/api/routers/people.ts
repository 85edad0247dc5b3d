import {
  ConsoleEraseInput,
  consoleErasure,
  eraseFromConsole,
  exportPerson,
  getPersonDetail,
  ListPeopleQuery,
  listPeople,
  PersonRef,
  withdrawErasure,
} from "../../services/people";
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
  /**
   * POST /v1/people/{personDid}/erase's twin (scope admin there), with the first 8 characters of
   * the person's id typed as confirmation; held, it answers CONFLICT `erasure_held` like /v1.
   */
  erase: consoleProcedure("admin")
    .input(ConsoleEraseInput)
    .mutation(({ ctx, input }) => eraseFromConsole(ctx.svc, input)),
  /** GET /v1/people/{personDid}/erase's twin, null instead of 404 when no erasure was requested. */
  erasure: consoleProcedure("admin")
    .input(PersonRef)
    .query(({ ctx, input }) => consoleErasure(ctx.svc, input.id)),
  /**
   * GET /v1/people/{personDid}/export's twin (scope compliance_export there, so compliance
   * officers and up, as audit exports): the signed access-request document. A mutation, since
   * every export is audited.
   */
  exportData: consoleProcedure("compliance_officer")
    .input(PersonRef)
    .mutation(({ ctx, input }) => exportPerson(ctx.svc, input.id)),
  /** DELETE /v1/people/{personDid}/erase's twin: withdraws a scheduled erasure. */
  withdrawErasure: consoleProcedure("admin")
    .input(PersonRef)
    .mutation(({ ctx, input }) => withdrawErasure(ctx.svc, input.id)),
});
