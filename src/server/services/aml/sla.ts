import { actorId, type ServiceContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { appendAudit } from "../audit";
import type { Severity } from "./aml.schema";
import { OPEN_STATUSES } from "./case-records";
import type { AmlSlaInput, AmlSlaSettings } from "./casework.schema";

/** Hours to decide a case, per priority, unless the organization set its own (docs/api/guides/aml-cases.md). */
export const DEFAULT_SLA_HOURS: AmlSlaSettings = { critical: 24, high: 72, medium: 168, low: 336 };

const HOUR_MS = 3_600_000;

/** The organization's SLA hours (its own, or the defaults). */
export async function slaHours(db: DbOrTx, orgId: string): Promise<AmlSlaSettings> {
  const row = await db.amlSlaSetting.findUnique({ where: { orgId } });
  return row ? { critical: row.criticalHours, high: row.highHours, medium: row.mediumHours, low: row.lowHours } : { ...DEFAULT_SLA_HOURS };
}

/** A case's deadline: its opening time plus the hours of its priority. */
export const dueAtFor = (openedAt: Date, priority: Severity, hours: AmlSlaSettings) =>
  new Date(openedAt.getTime() + hours[priority] * HOUR_MS);

/** GET /v1/admin/aml-sla. */
export async function getSla(ctx: ServiceContext) {
  const row = await ctx.db.amlSlaSetting.findUnique({ where: { orgId: ctx.org.id } });
  return { hours: await slaHours(ctx.db, ctx.org.id), defaults: DEFAULT_SLA_HOURS, updatedAt: row?.updatedAt.toISOString() ?? null };
}

/**
 * PUT /v1/admin/aml-sla: sets the hours (omitted priorities keep theirs) and moves the deadline of
 * every case still open to its opening time plus the new hours, in one audited transaction. A case
 * whose overdue email went out keeps that mark: the email is sent once per case.
 */
export async function setSla(ctx: ServiceContext, input: AmlSlaInput) {
  const orgId = ctx.org.id;
  await ctx.db.$transaction(async (tx) => {
    // Serialises concurrent changes of one organization's settings.
    await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${orgId}::uuid FOR NO KEY UPDATE`;
    const before = await slaHours(tx, orgId);
    const after: AmlSlaSettings = { ...before, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
    const data = {
      criticalHours: after.critical,
      highHours: after.high,
      mediumHours: after.medium,
      lowHours: after.low,
      updatedBy: actorId(ctx.actor),
    };
    await tx.amlSlaSetting.upsert({ where: { orgId }, create: { orgId, ...data }, update: data });
    await tx.$executeRaw`
      UPDATE aml_cases SET "dueAt" = "createdAt" + make_interval(hours => CASE priority
        WHEN 'critical' THEN ${after.critical}::int WHEN 'high' THEN ${after.high}::int
        WHEN 'medium' THEN ${after.medium}::int ELSE ${after.low}::int END)
      WHERE "orgId" = ${orgId}::uuid AND status::text = ANY(${[...OPEN_STATUSES]}::text[])`;
    await appendAudit(
      tx,
      { orgId, actor: ctx.actor },
      { action: "aml.sla_updated", subjectType: "organization", subject: orgId, data: { before, after } },
    );
  });
  return getSla(ctx);
}

/** Cases still open (or awaiting approval) whose deadline has passed. */
export const countOverdue = (db: DbOrTx, orgId: string, now: Date) =>
  db.amlCase.count({ where: { orgId, status: { in: [...OPEN_STATUSES] }, dueAt: { lte: now } } });
