import { z } from "zod";
import { AuditEntryView } from "./audit";
import { AmlCaseView, Severity } from "./aml";
import { RiskDecision } from "./risk";

const KycStatus = z.enum(["not_started", "pending", "in_review", "approved", "rejected", "retry"]);
const Lifecycle = z.enum(["provisional", "bound", "unlocked", "suspended"]);
const count = z.int().min(0);
const bySeverity = z.object({ low: count, medium: count, high: count, critical: count });

export const PersonSummary = z.object({
  personDid: z.string(),
  kycStatus: KycStatus,
  kycLevel: z.string(),
  kycProvider: z.string().nullable(),
  country: z.string().nullable(),
  pepFlag: z.boolean(),
  sanctionsFlag: z.boolean(),
  riskScore: z.int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** Paging like GET /v1/admin/accounts: newest first, `before` = the previous page's `nextBefore`. */
export const ListPeopleQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  kycStatus: KycStatus.optional(),
  flagged: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  before: z.iso.datetime().optional(),
});
export type ListPeopleQuery = z.output<typeof ListPeopleQuery>;

export const PeopleList = z.object({ people: z.array(PersonSummary), nextBefore: z.string().nullable() });

export const AdminAmlView = z.object({
  counts: z.object({ flaggedPeople: count, sanctionsFlagged: count, pepFlagged: count, openCases: count, pendingApproval: count }),
  /** People with a PEP or sanctions flag up, worst first, with their open case if any. */
  alerts: z.array(
    PersonSummary.extend({ openCase: z.object({ caseId: z.uuid(), status: z.enum(["open", "pending_approval"]), priority: Severity }).nullable() }),
  ),
  openCases: z.array(AmlCaseView),
  /** Recent `aml.*` audit entries, newest first. */
  recentEvents: z.array(AuditEntryView),
});

export const RiskEventView = z.object({
  id: z.uuid(),
  kind: z.string(),
  subjectRef: z.string().nullable(),
  deviceHash: z.string().nullable(),
  clientIp: z.string().nullable(),
  score: z.int(),
  decision: z.string(),
  reasons: z.array(z.string()),
  createdAt: z.iso.datetime(),
});

export const AdminRiskView = z.object({
  velocity: z.object({
    events1m: count,
    events1h: count,
    events24h: count,
    decisions24h: z.object({ allow: count, review: count, deny: count }),
    topDevices1h: z.array(z.object({ deviceHash: z.string(), events: count })),
    topIps1h: z.array(z.object({ clientIp: z.string(), events: count })),
  }),
  /** Devices seen with two or more people or accounts (accounts created with them, or risk events in the last 30 days). */
  sharedDevices: z.array(z.object({ deviceHash: z.string(), subjects: count, lastSeenAt: z.iso.datetime() })),
  recentEvents: z.array(RiskEventView),
});

export const DashboardView = z.object({
  accounts: z.object({ total: count, byLifecycle: z.record(Lifecycle, count) }),
  people: z.object({ total: count, byKycStatus: z.record(KycStatus, count), flagged: count }),
  amlCases: z.object({ open: bySeverity, pendingApproval: bySeverity }),
  risk24h: z.record(RiskDecision, count),
  recentAudit: z.array(AuditEntryView),
});
