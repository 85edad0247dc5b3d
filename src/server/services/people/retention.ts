import { z } from "zod";
import type { Organization } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { orgChanged } from "../../platform/auth-cache";
import { appendAudit } from "../audit";

/**
 * The organization's retention settings (docs/data-protection.md, "Holds" and "Retention"): how
 * long a person's AML records are kept after the relationship ends before an erasure may be
 * carried out, and the retention policies the worker runs (retention-run.ts), each off (null)
 * until the organization sets it.
 */

const MAX_DAYS = 36_500;
const policyDays = (what: string) => z.int().min(1).max(MAX_DAYS).nullable().describe(`${what}; null (the default) turns the policy off`);

export const RetentionSettings = z
  .object({
    amlRetentionDays: z
      .int()
      .min(0)
      .max(MAX_DAYS)
      .describe(
        "Days a person's AML records are kept after the relationship ends (default 1826, five years); 0 keeps nothing past the end",
      ),
    rejectedKycDays: policyDays(
      "Days after the last activity of a verification that was rejected or never finished (not_started, pending, retry) before the person is erased",
    ),
    closedRelationshipDays: policyDays(
      "Days after an approved person's relationship ended (no active or suspended binding, no open AML case) before they are erased; the AML retention period still holds them",
    ),
    contactOnlyDays: policyDays(
      "Days after an account no person is linked to had its email or phone set before its email, phone and device fingerprint are blanked; also the age past which one-time codes and proof tokens are deleted",
    ),
  })
  .meta({ id: "RetentionSettings" });

const S = RetentionSettings.shape;
export const RetentionSettingsInput = z
  .strictObject({
    amlRetentionDays: S.amlRetentionDays.optional(),
    rejectedKycDays: S.rejectedKycDays.optional(),
    closedRelationshipDays: S.closedRelationshipDays.optional(),
    contactOnlyDays: S.contactOnlyDays.optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "give at least one setting" })
  .meta({ minProperties: 1, description: "At least one setting; omitted settings are left unchanged, null turns a policy off." });
export type RetentionSettingsInput = z.output<typeof RetentionSettingsInput>;

export const POLICY_FIELDS = ["rejectedKycDays", "closedRelationshipDays", "contactOnlyDays"] as const;
export type RetentionPolicies = Pick<Organization, (typeof POLICY_FIELDS)[number]>;

const view = (org: Pick<Organization, "amlRetentionDays"> & RetentionPolicies) => ({
  amlRetentionDays: org.amlRetentionDays,
  rejectedKycDays: org.rejectedKycDays,
  closedRelationshipDays: org.closedRelationshipDays,
  contactOnlyDays: org.contactOnlyDays,
});

export async function getRetention(ctx: ServiceContext) {
  const org = await ctx.db.organization.findUniqueOrThrow({ where: { id: ctx.org.id } });
  return view(org);
}

export async function setRetention(ctx: ServiceContext, input: RetentionSettingsInput) {
  const saved = await ctx.db.$transaction(async (tx) => {
    const before = await tx.organization.findUniqueOrThrow({ where: { id: ctx.org.id } });
    const org = await tx.organization.update({ where: { id: ctx.org.id }, data: input });
    if (before.amlRetentionDays !== org.amlRetentionDays)
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        {
          action: "org.retention_changed",
          subjectType: "organization",
          subject: ctx.org.id,
          data: { before: before.amlRetentionDays, after: org.amlRetentionDays },
        },
      );
    const changed = POLICY_FIELDS.filter((f) => before[f] !== org[f]);
    if (changed.length)
      await appendAudit(
        tx,
        { orgId: ctx.org.id, actor: ctx.actor },
        {
          action: "org.retention_policy_changed",
          subjectType: "organization",
          subject: ctx.org.id,
          data: {
            before: Object.fromEntries(changed.map((f) => [f, before[f]])),
            after: Object.fromEntries(changed.map((f) => [f, org[f]])),
          },
        },
      );
    return view(org);
  });
  // This instance's cached organization now; other instances hear the database's NOTIFY.
  orgChanged(ctx.org.id);
  return saved;
}
