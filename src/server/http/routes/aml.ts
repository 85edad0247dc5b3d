import * as aml from "../../services/aml";
import {
  AdminAmlView,
  AmlCaseList,
  AmlCaseParams,
  AmlCaseView,
  ApproveClearInput,
  ClearAmlInput,
  ClearAmlResult,
  ConfirmAmlInput,
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
    handler: ({ ctx, body }) => aml.proposeClear(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/aml/cases",
    auth: compliance,
    tag,
    summary: "Cases that are open or awaiting approval, worst priority first, then oldest first, with the screening hits that raised them.",
    response: AmlCaseList,
    handler: ({ ctx }) => aml.listOpenCases(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/aml/cases/{caseId}/approve-clear",
    auth: compliance,
    tag,
    summary:
      "Second approval of a proposed clear: lifts the flags, resets riskScore and closes the case in one transaction. 403 same_approver when the approver is the proposer; 409 not_awaiting_approval otherwise.",
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
];
