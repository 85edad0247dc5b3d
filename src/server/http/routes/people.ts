import {
  exportPerson,
  getErasure,
  getRetention,
  ListPeopleQuery,
  listPeople,
  PeopleList,
  PersonErased,
  PersonErasureView,
  PersonExport,
  PersonPathParams,
  previewRetention,
  RetentionPlanView,
  RetentionSettings,
  RetentionSettingsInput,
  requestErasure,
  setRetention,
  withdrawErasure,
} from "../../services/people";
import { route } from "../route";
import type { RouteDef } from "../types";

const PERSON_DID = "did:web:id.example.com:people:0d9e8f7a-6b5c-4d3e-8f21-a1b2c3d4e5f6";

/** GET /v1/admin/people (scope `admin`, as every /v1/admin/* read), and a person's erasure (docs/data-protection.md). */
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
  route({
    method: "POST",
    path: "/v1/people/{personDid}/erase",
    auth: { scope: "admin" },
    tag: "People",
    summary:
      "Erases a person (their DID, URL-encoded, or id): personal fields blanked, their data key destroyed, bindings revoked, one person.erased audit entry and webhook. A second call answers the same. Held by an open AML case or the AML retention period: 409 erasure_held with erasableFrom, and the erasure is scheduled for then.",
    params: PersonPathParams,
    response: PersonErased,
    idempotent: true,
    errors: ["NOT_FOUND", "CONFLICT"],
    examples: {
      response: {
        personDid: PERSON_DID,
        status: "erased",
        requestedAt: "2026-03-09T14:02:11.000Z",
        erasedAt: "2026-03-09T14:02:11.000Z",
        bindingsRevoked: 1,
        accountsCleared: 1,
        casesRedacted: 0,
      },
    },
    handler: ({ ctx, params }) => requestErasure(ctx, params.personDid),
  }),
  route({
    method: "GET",
    path: "/v1/people/{personDid}/erase",
    auth: { scope: "admin" },
    tag: "People",
    summary: "The person's erasure request as it stands: scheduled (with what holds it and until when), completed or withdrawn.",
    params: PersonPathParams,
    response: PersonErasureView,
    errors: ["NOT_FOUND"],
    examples: {
      response: {
        personDid: PERSON_DID,
        status: "scheduled",
        requestedAt: "2026-03-09T14:02:11.000Z",
        erasableFrom: "2031-03-09T14:02:11.000Z",
        heldBy: ["aml_retention"],
        erasedAt: null,
      },
    },
    handler: ({ ctx, params }) => getErasure(ctx, params.personDid),
  }),
  route({
    method: "DELETE",
    path: "/v1/people/{personDid}/erase",
    auth: { scope: "admin" },
    tag: "People",
    summary:
      "Withdraws a scheduled erasure (bindings it revoked stay revoked). An erasure already carried out cannot be withdrawn: 409 already_erased.",
    params: PersonPathParams,
    response: PersonErasureView,
    errors: ["NOT_FOUND", "CONFLICT"],
    examples: {
      response: {
        personDid: PERSON_DID,
        status: "withdrawn",
        requestedAt: "2026-03-09T14:02:11.000Z",
        erasableFrom: "2031-03-09T14:02:11.000Z",
        heldBy: ["aml_retention"],
        erasedAt: null,
      },
    },
    handler: ({ ctx, params }) => withdrawErasure(ctx, params.personDid),
  }),
  route({
    method: "GET",
    path: "/v1/admin/retention",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "The organization's retention settings: how long a person's AML records are kept after the relationship ends (which holds their erasure), and the retention policies the worker runs hourly (null: off).",
    response: RetentionSettings,
    examples: { response: { amlRetentionDays: 1826, rejectedKycDays: 90, closedRelationshipDays: null, contactOnlyDays: 30 } },
    handler: ({ ctx }) => getRetention(ctx),
  }),
  route({
    method: "PUT",
    path: "/v1/admin/retention",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "Sets the retention settings given (at least one; the others stay); null turns a policy off. Scheduled erasures take a new AML period at their next check; the policies apply from the worker's next hourly run (GET /v1/admin/retention/preview shows what it will do).",
    body: RetentionSettingsInput,
    response: RetentionSettings,
    examples: {
      request: { rejectedKycDays: 90, contactOnlyDays: 30 },
      response: { amlRetentionDays: 1826, rejectedKycDays: 90, closedRelationshipDays: null, contactOnlyDays: 30 },
    },
    handler: ({ ctx, body }) => setRetention(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/admin/retention/preview",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "The retention policies' dry run: exactly the people the worker's run would erase now, the accounts whose contacts it would blank and the codes and tokens it would delete, and the people a policy selects but a hold (open AML case, AML retention period) keeps. At most 1,000 of each list; more says the rest comes in later runs.",
    response: RetentionPlanView,
    examples: {
      response: {
        at: "2026-03-09T14:00:00.000Z",
        people: [{ personDid: PERSON_DID, rule: "rejected_kyc" }],
        held: [
          {
            personDid: "did:web:id.example.com:people:5b7c1d2e-3f40-4a51-9b62-c7d8e9f0a1b2",
            rule: "closed_relationship",
            heldBy: ["aml_retention"],
            erasableFrom: "2029-06-01T10:00:00.000Z",
          },
        ],
        accounts: [{ accountDid: "did:antelope:eos:quietalice1" }],
        otpChallenges: 12,
        proofTokens: 3,
        more: false,
      },
    },
    handler: ({ ctx }) => previewRetention(ctx),
  }),
  route({
    method: "GET",
    path: "/v1/people/{personDid}/export",
    auth: { scope: "compliance_export" },
    tag: "People",
    summary:
      "Everything held about one person (their DID, URL-encoded, or id), opened, in one document signed like an audit export, for answering their access request; AML cases, screenings and risk assessments are withheld and named in data.withheld. Verify with npm run export:verify.",
    params: PersonPathParams,
    response: PersonExport,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => exportPerson(ctx, params.personDid),
  }),
];
