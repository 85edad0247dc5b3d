import { z } from "zod";
import { normalizeIp } from "../../net/cidr";

export const RISK_KINDS = ["free_create", "bind", "manual"] as const;
export type RiskKind = (typeof RISK_KINDS)[number];
export const RiskDecision = z.enum(["allow", "review", "deny"]);

/**
 * POST /v1/risk/assess (the contract leaves the body open). Every field is optional: the
 * assessment uses what it is given. `ipAddress` is the end user's address as the tenant saw it;
 * without it the caller's own address is used.
 */
export const RiskAssessInput = z.strictObject({
  deviceFingerprint: z.string().min(1).max(512).optional(),
  email: z.email().max(254).optional(),
  ipAddress: z
    .string()
    .max(64)
    .refine((s) => normalizeIp(s) !== null, "must be an IPv4 or IPv6 address")
    .optional(),
  /** The person or account DID (or the tenant's own user reference) the action is for. */
  subjectRef: z.string().min(1).max(300).optional(),
});
export type RiskAssessInput = z.infer<typeof RiskAssessInput>;

export const RiskReason = z.object({ code: z.string(), weight: z.int(), message: z.string() });

export const RiskSignals = z.object({
  deviceEvents1h: z.int().nullable(),
  deviceEvents24h: z.int().nullable(),
  sharedDeviceSubjects: z.int().nullable(),
  ipEvents1h: z.int(),
  ipSource: z.enum(["input", "caller"]),
  orgEvents1m: z.int(),
  orgEvents1h: z.int(),
  disposableEmail: z.boolean().nullable(),
});

export const RiskAssessment = z.object({
  assessmentId: z.uuid(),
  kind: z.enum(RISK_KINDS),
  score: z.int().min(0).max(100),
  decision: RiskDecision,
  reasons: z.array(RiskReason),
  signals: RiskSignals,
  createdAt: z.iso.datetime(),
});
export type RiskAssessment = z.infer<typeof RiskAssessment>;
