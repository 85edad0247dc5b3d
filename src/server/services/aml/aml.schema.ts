import { z } from "zod";

/** Severity and case priority, weakest first (docs/api/contract-decisions.md §3). */
export const SEVERITIES = ["low", "medium", "high", "critical"] as const;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

export const AmlCaseStatus = z.enum(["open", "pending_approval", "cleared", "confirmed"]);

/** POST /v1/aml/clear (contract Limits: reason 3 to 500 characters). */
export const ClearAmlInput = z.strictObject({
  subjectDid: z.string().min(1).max(300),
  reason: z.string().trim().min(3).max(500),
});
export type ClearAmlInput = z.infer<typeof ClearAmlInput>;

export const ClearAmlResult = z.object({
  cleared: z.boolean(),
  pendingApproval: z.boolean(),
  caseId: z.uuid(),
  subjectDid: z.string(),
});

export const AmlCaseParams = z.object({ caseId: z.string().min(1).max(100) });

/** POST /v1/aml/cases/{caseId}/approve-clear (notes at most 500 characters). */
export const ApproveClearInput = z.strictObject({ notes: z.string().trim().max(500).optional() });
export type ApproveClearInput = z.infer<typeof ApproveClearInput>;

/** POST /v1/aml/cases/{caseId}/confirm (reason required, at most 500 characters). */
export const ConfirmAmlInput = z.strictObject({ reason: z.string().trim().min(1).max(500) });
export type ConfirmAmlInput = z.infer<typeof ConfirmAmlInput>;

const when = z.iso.datetime().nullable();

export const AmlCaseHitView = z.object({
  resultId: z.string().nullable(),
  severity: Severity,
  sanctions: z.boolean(),
  pep: z.boolean(),
  score: z.int(),
  createdAt: z.iso.datetime(),
});

/** A case as a compliance officer reads it: who did what, when and why, and the hits that raised it. */
export const AmlCaseView = z.object({
  caseId: z.uuid(),
  status: AmlCaseStatus,
  priority: Severity,
  subjectDid: z.string(),
  reason: z.string(),
  openedBy: z.string(),
  openedAt: z.iso.datetime(),
  proposedBy: z.string().nullable(),
  proposedAt: when,
  proposeReason: z.string().nullable(),
  approvedBy: z.string().nullable(),
  approvedAt: when,
  approveNotes: z.string().nullable(),
  confirmedBy: z.string().nullable(),
  confirmedAt: when,
  confirmReason: z.string().nullable(),
  closedAt: when,
  hits: z.array(AmlCaseHitView),
});
export type AmlCaseView = z.infer<typeof AmlCaseView>;

export const AmlCaseList = z.object({ cases: z.array(AmlCaseView) });

/** Outcome of a screening that matched, as the screening service reports it. */
export type ScreeningOutcome = {
  sanctions: boolean;
  pep: boolean;
  severity: Severity | null;
  resultId?: string | null;
  score: number;
};
