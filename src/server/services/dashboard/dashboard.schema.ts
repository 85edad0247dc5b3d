import { z } from "zod";
import { RiskDecision } from "../aml";
import { AuditActivityView } from "../audit";
import { KycStatusName } from "../people";

const Lifecycle = z.enum(["provisional", "bound", "unlocked", "suspended"]);
const count = z.int().min(0);
const bySeverity = z.object({ low: count, medium: count, high: count, critical: count });

export const DashboardView = z.object({
  accounts: z.object({ total: count, byLifecycle: z.record(Lifecycle, count) }),
  people: z.object({ total: count, byKycStatus: z.record(KycStatusName, count), flagged: count }),
  /** Open and pending cases by priority; overdue: those past their SLA deadline. */
  amlCases: z.object({ open: bySeverity, pendingApproval: bySeverity, overdue: count }),
  risk24h: z.record(RiskDecision, count),
  recentAudit: z.array(AuditActivityView),
});
