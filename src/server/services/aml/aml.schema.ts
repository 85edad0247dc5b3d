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

/** Where an open case stands against its deadline (services/aml/sla.ts); null once closed. */
export const CaseAgeing = z.enum(["on_time", "due_soon", "overdue"]);
export type CaseAgeing = z.infer<typeof CaseAgeing>;

/**
 * What a reviewer needs to decide a hit, frozen when the hit was recorded (services/aml/evidence.ts):
 * who was screened (as KYC verified them), what matched (the list entry and list version), why
 * (the score in words), and what a KYC provider itself reported.
 */
export const AmlHitEvidence = z
  .object({
    subject: z.object({
      name: z.string().nullable(),
      birthDate: z.string().nullable(),
      country: z.string().nullable(),
      /** kyc_provider: the attributes the provider verified; person_record: only what the person row holds. */
      source: z.enum(["kyc_provider", "person_record"]),
    }),
    matches: z.array(
      z.object({
        entryId: z.string(),
        externalId: z.string().nullable(),
        name: z.string(),
        aliases: z.array(z.string()),
        matchedName: z.string().nullable(),
        list: z.string(),
        listVersionId: z.string().nullable(),
        listVersionHash: z.string().nullable(),
        programme: z.string().nullable(),
        topics: z.array(z.string()),
        birthDates: z.array(z.string()),
        countries: z.array(z.string()),
        /** 0 to 100. */
        score: z.int(),
        /** The score in words, e.g. "name matches an alias exactly; birth year differs by one". */
        explanation: z.string(),
      }),
    ),
    provider: z.object({ name: z.string(), sanctions: z.boolean(), pep: z.boolean(), labels: z.array(z.string()) }).nullable(),
    /** One line: why this hit was raised. */
    summary: z.string(),
  })
  .meta({
    examples: [
      {
        subject: { name: "Ivan Sidorov", birthDate: "1962-04-11", country: "RU", source: "kyc_provider" },
        matches: [
          {
            entryId: "0195a7c2-41f6-7a3e-9c1d-5b2e8f4a6d10",
            externalId: "NK-123",
            name: "Ivan Petrovich Sidorov",
            aliases: ["Ivan Sidorov"],
            matchedName: "Ivan Sidorov",
            list: "opensanctions",
            listVersionId: "0195a7c2-41f6-7a3e-9c1d-5b2e8f4a6d11",
            listVersionHash: "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e8a1c3e5b7d9f0a2c4e6b8d0f",
            programme: "UKRAINE-EO13660",
            topics: ["sanction"],
            birthDates: ["1961-04-12"],
            countries: ["RU"],
            score: 94,
            explanation: "name matches an alias exactly; birth year differs by one; country matches",
          },
        ],
        provider: null,
        summary:
          "Screening matched Ivan Petrovich Sidorov on opensanctions (score 94): name matches an alias exactly; birth year differs by one; country matches.",
      },
    ],
  });
export type HitEvidence = z.infer<typeof AmlHitEvidence>;

export const AmlCaseHitView = z.object({
  resultId: z.string().nullable(),
  severity: Severity,
  sanctions: z.boolean(),
  pep: z.boolean(),
  score: z.int(),
  createdAt: z.iso.datetime(),
  /** Null for hits recorded before evidence was kept. */
  evidence: AmlHitEvidence.nullable(),
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
  /** The console member working the case, or null. */
  assigneeEmail: z.string().nullable(),
  assignedAt: when,
  /** The deadline from the organization's SLA hours for the case's priority. */
  dueAt: when,
  ageing: CaseAgeing.nullable(),
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
