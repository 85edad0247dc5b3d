import * as audit from "../../services/audit";
import {
  AuditListQuery,
  AuditListView,
  ExportCreatedView,
  ExportJobParams,
  ExportJobView,
  ExportListQuery,
  ExportListView,
  ExportRequestInput,
  VerifyResultView,
} from "../../services/audit";
import { route } from "../route";
import type { RouteDef } from "../types";

/** Audit log reads, chain verification and signed exports. */
export const auditRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/audit",
    auth: { scope: "admin" },
    tag: "Admin",
    summary: "Hash-chained audit entries of the organization, newest first; page on with `before` = `nextBefore`.",
    query: AuditListQuery,
    response: AuditListView,
    handler: ({ ctx, query }) => audit.listAudit(ctx, query),
  }),
  route({
    method: "POST",
    path: "/v1/compliance/audit/verify",
    auth: { scope: "compliance_export" },
    tag: "Compliance",
    summary:
      "Recomputes the organization's audit hash chain; a changed, removed or reordered entry makes it invalid and names the first bad entry.",
    response: VerifyResultView,
    handler: ({ ctx }) => audit.verifyAudit(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/compliance/export",
    auth: { scope: "compliance_export" },
    tag: "Compliance",
    summary: "Queues a signed export of the audit log for [from, to) (ISO 8601 date-times, at most 366 days).",
    body: ExportRequestInput,
    response: ExportCreatedView,
    examples: { request: { from: "2025-01-01T00:00:00Z", to: "2025-04-01T00:00:00Z" } },
    handler: ({ ctx, body }) => audit.requestExport(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/compliance/exports",
    auth: { scope: "compliance_export" },
    tag: "Compliance",
    summary: "Recent export jobs of the organization, newest first, without artifacts.",
    query: ExportListQuery,
    response: ExportListView,
    handler: ({ ctx, query }) => audit.listExports(ctx, query),
  }),
  route({
    method: "GET",
    path: "/v1/compliance/export/{jobId}",
    auth: { scope: "compliance_export" },
    tag: "Compliance",
    summary: "One export job; once completed, with its artifact (entries, checkpoint and the issuer's Ed25519 signature).",
    params: ExportJobParams,
    response: ExportJobView,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => audit.getExport(ctx, params.jobId),
  }),
];
