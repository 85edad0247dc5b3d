import { z } from "zod";
import { PersonSummary } from "../people";
import { AmlCaseView } from "./aml.schema";

// Casework on an AML case: assignment, comments, the timeline and its signed export, SLA settings
// (docs/api/guides/aml-cases.md).

const email = z.email().max(320);

/** POST /v1/aml/cases/{caseId}/assign: to a member holding compliance_officer or above. */
export const AssignCaseInput = z.strictObject({ assigneeEmail: email });
export type AssignCaseInput = z.infer<typeof AssignCaseInput>;

/** POST /v1/aml/cases/{caseId}/reassign: a reason is required (3 to 500 characters). */
export const ReassignCaseInput = z.strictObject({ assigneeEmail: email, reason: z.string().trim().min(3).max(500) });
export type ReassignCaseInput = z.infer<typeof ReassignCaseInput>;

/** POST /v1/aml/cases/{caseId}/unassign. */
export const UnassignCaseInput = z.strictObject({ reason: z.string().trim().max(500).optional() });
export type UnassignCaseInput = z.infer<typeof UnassignCaseInput>;

/**
 * POST /v1/aml/cases/next: the oldest, highest-priority unassigned open case, assigned at once.
 * A console member takes it for themselves; an API key names the member it hands the case to.
 */
export const NextCaseInput = z.strictObject({ assigneeEmail: email.optional() });
export type NextCaseInput = z.infer<typeof NextCaseInput>;

export const NextCaseResult = z.object({ case: AmlCaseView.nullable() });

/** POST /v1/aml/cases/{caseId}/comments: a note of 1 to 4000 characters. */
export const AddCommentInput = z.strictObject({ text: z.string().trim().min(1).max(4000) });
export type AddCommentInput = z.infer<typeof AddCommentInput>;

export const AmlCommentView = z.object({
  commentId: z.uuid(),
  caseId: z.uuid(),
  author: z.string(),
  text: z.string(),
  createdAt: z.iso.datetime(),
});

/** GET /v1/aml/cases: which cases, whose, and a name or DID to look for. */
export const ListCasesQuery = z.object({
  status: z.enum(["open", "closed", "all"]).default("open"),
  /** A member's email, or `none` for unassigned cases. */
  assignee: z.union([z.literal("none"), email]).optional(),
  /** Part of the subject's name (as screened), a matched entry's name or alias, or the subject DID. */
  q: z.string().trim().min(2).max(200).optional(),
  limit: z.coerce.number<string>().pipe(z.int().min(1).max(500)).default(200),
});
export type ListCasesQuery = z.output<typeof ListCasesQuery>;

/** The console's variant (numbers, not query strings); `mine` filters to the signed-in member's cases. */
export const ConsoleListCasesQuery = z
  .object({
    status: ListCasesQuery.shape.status,
    assignee: ListCasesQuery.shape.assignee,
    q: ListCasesQuery.shape.q,
    mine: z.boolean().optional(),
    limit: z.int().min(1).max(500).default(200),
  })
  .optional();

const hours = z.int().min(1).max(8760);

/** Per-priority deadline hours of the organization's AML cases. */
export const AmlSlaSettings = z.object({ critical: hours, high: hours, medium: hours, low: hours });
export type AmlSlaSettings = z.infer<typeof AmlSlaSettings>;

/** PUT /v1/admin/aml-sla: the hours to set; an omitted priority keeps its current value. */
export const AmlSlaInput = z.strictObject({
  critical: hours.optional(),
  high: hours.optional(),
  medium: hours.optional(),
  low: hours.optional(),
});
export type AmlSlaInput = z.infer<typeof AmlSlaInput>;

export const AmlSlaView = z.object({ hours: AmlSlaSettings, defaults: AmlSlaSettings, updatedAt: z.iso.datetime().nullable() });

export const AmlCaseEventKind = z.enum([
  "opened",
  "hit_added",
  "assigned",
  "reassigned",
  "unassigned",
  "comment",
  "proposed",
  "approved",
  "cleared",
  "confirmed",
  "reopened",
  "webhook_sent",
  "overdue",
  "exported",
  "credentials_changed",
]);
export type AmlCaseEventKind = z.infer<typeof AmlCaseEventKind>;

export const AmlCaseEventView = z.object({
  seq: z.int(),
  kind: AmlCaseEventKind,
  actor: z.string(),
  at: z.iso.datetime(),
  data: z.record(z.string(), z.unknown()),
  /** The comment's text, on `comment` events. */
  text: z.string().nullable(),
});

/** What clearing a case changes, and what it leaves as it is. */
export const ClearingEffect = z.object({ changes: z.array(z.string()), doesNotChange: z.array(z.string()) });

/** GET /v1/aml/cases/{caseId}/timeline: the case, who it is about, and everything that happened to it in order. */
export const AmlCaseTimeline = z.object({
  case: AmlCaseView,
  person: PersonSummary.nullable(),
  accounts: z.array(z.object({ accountDid: z.string(), name: z.string(), chain: z.string(), lifecycle: z.string() })),
  bindings: z.array(
    z.object({ bindingId: z.uuid(), accountDid: z.string(), createdAt: z.iso.datetime(), revokedAt: z.iso.datetime().nullable() }),
  ),
  events: z.array(AmlCaseEventView),
  clearing: ClearingEffect,
});

/** GET /v1/aml/cases/{caseId}/export: the timeline for an examiner, signed like an audit export. */
export const AmlCaseExport = z.object({
  format: z.literal("bi-aml-case-export/1"),
  organizationId: z.uuid(),
  caseId: z.uuid(),
  timeline: AmlCaseTimeline,
  checkpoint: z.object({
    type: z.literal("bi-aml-case-checkpoint/1"),
    organizationId: z.uuid(),
    caseId: z.uuid(),
    /** Hex SHA-256 of the JCS form of `timeline`. */
    timelineDigest: z.string(),
    events: z.int(),
    createdAt: z.iso.datetime(),
  }),
  proof: z.object({
    alg: z.literal("Ed25519"),
    canonicalization: z.literal("JCS"),
    verificationMethod: z.string(),
    signatureMultibase: z.string(),
  }),
});
