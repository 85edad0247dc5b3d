import { z } from "zod";
import type { ServiceContext } from "../../context";
import { orgChanged } from "../../platform/auth-cache";
import { appendAudit } from "../audit";

/**
 * The organization's retention settings (docs/data-protection.md, "Holds"): how long a person's
 * AML records are kept after the relationship ends before an erasure may be carried out.
 */
export const RetentionSettings = z
  .object({
    amlRetentionDays: z
      .int()
      .min(0)
      .max(36_500)
      .describe(
        "Days a person's AML records are kept after the relationship ends (default 1826, five years); 0 keeps nothing past the end",
      ),
  })
  .meta({ id: "RetentionSettings" });
export const RetentionSettingsInput = z.strictObject({ amlRetentionDays: RetentionSettings.shape.amlRetentionDays });

export async function getRetention(ctx: ServiceContext) {
  return { amlRetentionDays: ctx.org.amlRetentionDays };
}

export async function setRetention(ctx: ServiceContext, input: z.output<typeof RetentionSettingsInput>) {
  const saved = await ctx.db.$transaction(async (tx) => {
    const before = await tx.organization.findUniqueOrThrow({ where: { id: ctx.org.id }, select: { amlRetentionDays: true } });
    const org = await tx.organization.update({ where: { id: ctx.org.id }, data: { amlRetentionDays: input.amlRetentionDays } });
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
    return { amlRetentionDays: org.amlRetentionDays };
  });
  // This instance's cached organization now; other instances hear the database's NOTIFY.
  orgChanged(ctx.org.id);
  return saved;
}
