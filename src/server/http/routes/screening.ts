import * as screening from "../../services/screening";
import {
  DenylistAddInput,
  DenylistEntryView,
  DenylistParams,
  DenylistRemovedView,
  DenylistView,
  ScreenAccountInput,
  ScreenAccountView,
  ScreenApplicantInput,
  ScreenApplicantView,
} from "../../services/screening";
import { route } from "../route";
import type { RouteDef } from "../types";

/** Sanctions/PEP screening of applicants, account labels, and the organization's applicant denylist. */
export const screeningRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/v1/aml/screen-applicant",
    auth: { scope: "compliance_export" },
    tag: "Compliance",
    summary:
      "Screens an applicant by id hash: the organization's denylist, and the sanctions/PEP lists — now when `fullName` is given, else the person's latest stored screening. 404 when the hash is unknown, not denylisted and no name is given.",
    body: ScreenApplicantInput,
    response: ScreenApplicantView,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, body }) => screening.screenApplicant(ctx, body),
  }),
  route({
    method: "POST",
    path: "/v1/aml/screen-account",
    auth: { scope: "read" },
    tag: "Compliance",
    summary: "Labels and risk score (0–100) of a chain account from the active account-labels lists; the result is stored and audited.",
    body: ScreenAccountInput,
    response: ScreenAccountView,
    handler: ({ ctx, body }) => screening.screenAccountFor(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/aml/denylist",
    auth: { scope: "compliance_export" },
    tag: "Compliance",
    summary: "The organization's denylist of applicant id hashes, newest first.",
    response: DenylistView,
    handler: ({ ctx }) => screening.listDenylist(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/aml/denylist",
    auth: { scope: "compliance_export" },
    tag: "Compliance",
    summary: "Adds an applicant id hash to the organization's denylist with a reason; 409 when it is already there.",
    body: DenylistAddInput,
    response: DenylistEntryView,
    successStatus: 201,
    errors: ["CONFLICT"],
    handler: ({ ctx, body }) => screening.addToDenylist(ctx, body),
  }),
  route({
    method: "DELETE",
    path: "/v1/aml/denylist/{applicantIdHash}",
    auth: { scope: "compliance_export" },
    tag: "Compliance",
    summary: "Removes an applicant id hash from the organization's denylist.",
    params: DenylistParams,
    response: DenylistRemovedView,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => screening.removeFromDenylist(ctx, params.applicantIdHash),
  }),
];
