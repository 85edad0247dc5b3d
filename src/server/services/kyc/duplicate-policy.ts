import { z } from "zod";
import type { ServiceContext } from "../../context";
import { orgChanged } from "../../platform/auth-cache";
import { appendAudit } from "../audit";

/**
 * What a second verified person with the same identity document gets (docs/api/guides/unique-person.md):
 * `allow` (recorded, nothing said), `flag` (the default: `kyc.duplicate_person` and the person
 * marked for review) or `refuse` (flagged, and no create token). A person with only the same name,
 * birth date and nationality is flagged under `flag` and `refuse` alike, never refused.
 */
export const DuplicatePolicy = z
  .object({ duplicatePersonPolicy: z.enum(["allow", "flag", "refuse"]) })
  .meta({ id: "DuplicatePersonPolicy" });
export const DuplicatePolicyInput = z.strictObject({ duplicatePersonPolicy: DuplicatePolicy.shape.duplicatePersonPolicy });

export const getDuplicatePolicy = async (ctx: ServiceContext) => ({
  duplicatePersonPolicy: ctx.org.duplicatePersonPolicy as z.output<typeof DuplicatePolicy>["duplicatePersonPolicy"],
});

export async function setDuplicatePolicy(ctx: ServiceContext, input: z.output<typeof DuplicatePolicyInput>) {
  await ctx.db.$transaction(async (tx) => {
    const before = await tx.organization.findUniqueOrThrow({ where: { id: ctx.org.id }, select: { duplicatePersonPolicy: true } });
    if (before.duplicatePersonPolicy === input.duplicatePersonPolicy) return;
    await tx.organization.update({ where: { id: ctx.org.id }, data: { duplicatePersonPolicy: input.duplicatePersonPolicy } });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "org.duplicate_policy_changed",
        subjectType: "organization",
        subject: ctx.org.id,
        data: { before: before.duplicatePersonPolicy, after: input.duplicatePersonPolicy },
      },
    );
  });
  orgChanged(ctx.org.id);
  return { duplicatePersonPolicy: input.duplicatePersonPolicy };
}
