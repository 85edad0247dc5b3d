import * as aml from "../../services/aml";
import {
  AddCommentInput,
  AdminAmlView,
  AmlCaseExport,
  AmlCaseList,
  AmlCaseParams,
  AmlCaseTimeline,
  AmlCaseView,
  AmlCommentView,
  AmlSlaInput,
  AmlSlaView,
  ApproveClearInput,
  AssignCaseInput,
  ClearAmlInput,
  ClearAmlResult,
  ConfirmAmlInput,
  ListCasesQuery,
  NextCaseInput,
  NextCaseResult,
  ReassignCaseInput,
  UnassignCaseInput,
} from "../../services/aml";
import { route } from "../route";
import type { RouteDef } from "../types";

const compliance = { scope: "compliance_export" } as const;
const tag = "AML";

/** The AML case queue and its state machine (contract: States and transitions, AML case). */
export const amlRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/v1/aml/clear",
    auth: compliance,
    tag,
    summary:
      "Clears the subject's AML case, opening one by hand when none is open. Without the policy requireSecondApprovalToClearAml the flags are lifted and riskScore reset at once; with it the case waits for a second identity's approval (pendingApproval: true) and the flags stay up.",
    body: ClearAmlInput,
    response: ClearAmlResult,
    errors: ["NOT_FOUND", "CONFLICT"],
    idempotent: true,
    handler: ({ ctx, body }) => aml.proposeClear(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/aml/cases",
    auth: compliance,
    tag,
    summary:
      "Cases by status (open: open or awaiting approval, the default; closed: cleared or confirmed; all), optionally of one assignee (an email, or none for unassigned) or matching q (the subject's name as screened, a matched entry's name or alias, or the subject DID). Open cases come worst priority first, then oldest; closed ones most recently closed first. Each carries its assignee, SLA deadline and ageing, and its hits with their evidence.",
    query: ListCasesQuery,
    response: AmlCaseList,
    errors: ["VALIDATION_ERROR"],
    handler: ({ ctx, query }) => aml.listCases(ctx, query),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/next",
    auth: compliance,
    tag,
    summary:
      "Takes the next case: the worst-priority, then oldest, unassigned case in status open, assigned in one step to assigneeEmail (required with an API key; a console member takes it for themselves). Concurrent calls never get the same case. case is null when none is left.",
    body: NextCaseInput,
    response: NextCaseResult,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, body }) => aml.takeNextCase(ctx, body),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/{caseId}/assign",
    auth: compliance,
    tag,
    summary:
      "Assigns an unassigned open case to a console member holding compliance_officer or above. 404 assignee_not_found for no such active member; 409 assignee_role below compliance_officer, already_assigned (use reassign), case_closed.",
    params: AmlCaseParams,
    body: AssignCaseInput,
    response: AmlCaseView,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, params, body }) => aml.assignCase(ctx, params.caseId, body),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/{caseId}/reassign",
    auth: compliance,
    tag,
    summary:
      "Moves an assigned open case to another member, with a reason (3 to 500 characters). 409 not_assigned, case_closed, assignee_role.",
    params: AmlCaseParams,
    body: ReassignCaseInput,
    response: AmlCaseView,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, params, body }) => aml.reassignCase(ctx, params.caseId, body),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/{caseId}/unassign",
    auth: compliance,
    tag,
    summary: "Returns an assigned open case to the unassigned queue. 409 not_assigned, case_closed.",
    params: AmlCaseParams,
    body: UnassignCaseInput,
    response: AmlCaseView,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, params, body }) => aml.unassignCase(ctx, params.caseId, body),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/{caseId}/comments",
    auth: compliance,
    tag,
    summary:
      "Adds a note (1 to 4000 characters) to a case, open or closed. It appears in the timeline; the audit log records its id and length, not its text.",
    params: AmlCaseParams,
    body: AddCommentInput,
    response: AmlCommentView,
    successStatus: 201,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params, body }) => aml.addComment(ctx, params.caseId, body),
  }),
  route({
    method: "GET",
    path: "/v1/aml/cases/{caseId}/timeline",
    auth: compliance,
    tag,
    summary:
      "The case with its hits and their evidence, the person it is about with their accounts and bindings, every event in order (opened, hit added, assignment, comments, proposal, decision, webhook sent, overdue, export), and what clearing does and does not change.",
    params: AmlCaseParams,
    response: AmlCaseTimeline,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => aml.getTimeline(ctx, params.caseId),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/{caseId}/export",
    auth: compliance,
    tag,
    summary:
      "Exports the case timeline for an examiner as a JSON bundle: a checkpoint holding the SHA-256 of the timeline's JCS form, signed with the issuer key exactly as audit exports are. The export is audited and is the timeline's last event.",
    params: AmlCaseParams,
    response: AmlCaseExport,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => aml.exportCase(ctx, params.caseId),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/{caseId}/approve-clear",
    auth: compliance,
    tag,
    summary:
      "Second approval of a proposed clear: lifts the flags, resets riskScore and closes the case in one transaction. 403 same_approver when the approver is the proposer, assignee_proposed when the approver was the case's assignee when it was proposed; 409 not_awaiting_approval otherwise.",
    params: AmlCaseParams,
    body: ApproveClearInput,
    response: AmlCaseView,
    errors: ["NOT_FOUND", "FORBIDDEN", "CONFLICT"],
    handler: ({ ctx, params, body }) => aml.approveClear(ctx, params.caseId, body),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/{caseId}/confirm",
    auth: compliance,
    tag,
    summary:
      "Confirms the match of an open or pending case: the case closes as confirmed and the flags stay up. 409 case_closed when already closed.",
    params: AmlCaseParams,
    body: ConfirmAmlInput,
    response: AmlCaseView,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, params, body }) => aml.confirmCase(ctx, params.caseId, body),
  }),
];

/** GET /v1/admin/aml: the alerts overview (scope `admin`). */
export const amlAdminRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/aml",
    auth: { scope: "admin" },
    tag: "Admin",
    summary: "PEP and sanctions alerts (flagged people with their open case), the open case queue, and recent AML audit entries.",
    response: AdminAmlView,
    handler: ({ ctx }) => aml.amlOverview(ctx),
  }),
  route({
    method: "GET",
    path: "/v1/admin/aml-sla",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "Hours to decide an AML case, per priority: the organization's own, and the defaults (critical 24, high 72, medium 168, low 336).",
    response: AmlSlaView,
    handler: ({ ctx }) => aml.getSla(ctx),
  }),
  route({
    method: "PUT",
    path: "/v1/admin/aml-sla",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "Sets the hours per priority (1 to 8760; an omitted priority keeps its value). The deadline of every open case moves to its opening time plus the new hours.",
    body: AmlSlaInput,
    response: AmlSlaView,
    errors: ["VALIDATION_ERROR"],
    handler: ({ ctx, body }) => aml.setSla(ctx, body),
  }),
];
