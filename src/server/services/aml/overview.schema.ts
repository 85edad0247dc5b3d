import { z } from "zod";
import { AuditActivityView } from "../audit";
import { PersonSummary } from "../people";
import { AmlCaseView, Severity } from "./aml.schema";

const count = z.int().min(0);

export const AdminAmlView = z.object({
  /** overdue: open or pending cases past their SLA deadline. */
  counts: z.object({
    flaggedPeople: count,
    sanctionsFlagged: count,
    pepFlagged: count,
    openCases: count,
    pendingApproval: count,
    overdue: count,
  }),
  /** People with a PEP or sanctions flag up, worst first, with their open case if any. */
  alerts: z.array(
    PersonSummary.extend({
      openCase: z.object({ caseId: z.uuid(), status: z.enum(["open", "pending_approval"]), priority: Severity }).nullable(),
    }),
  ),
  openCases: z.array(AmlCaseView),
  /** Recent `aml.*` audit entries, newest first. */
  /** The newest AML entries of the audit log, with who and what in words (as the dashboard shows them). */
  recentEvents: z.array(AuditActivityView),
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
