import type { ScreeningMonitorRun } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import { notFound } from "../../errors";
import { isUuid } from "../../platform/ids";
import { appendAudit } from "../audit";
import type { MonitoringRunsQuery, MonitoringSettingInput } from "./monitoring.schema";

// The doors' view of ongoing screening: the organization's periodic setting and its re-screen runs.

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Approved people of the organization with an identity on file: what a person phase goes through. */
async function subjectCount(ctx: ServiceContext): Promise<number> {
  const [row] = await ctx.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM screening_subjects s JOIN people p ON p.id = s."personId"
    WHERE s."orgId" = ${ctx.org.id}::uuid AND p."orgId" = ${ctx.org.id}::uuid AND p."kycStatus" = 'approved'`;
  return row?.n ?? 0;
}

function runView(r: ScreeningMonitorRun, subjects: number) {
  const finished = r.status === "completed" || r.status === "failed";
  return {
    runId: r.id,
    kind: r.kind as "list_change" | "periodic",
    status: r.status,
    phase: r.phase as "persons" | "accounts" | "done",
    list: r.list,
    listVersionId: r.listVersionId,
    previousVersionId: r.previousVersionId,
    counts: {
      changedEntries: r.changedEntries,
      personsScreened: r.personsScreened,
      personsTotal: finished ? r.personsScreened : Math.max(subjects, r.personsScreened),
      personsSkipped: r.personsSkipped,
      accountsScreened: r.accountsScreened,
      hits: r.hits,
      casesOpened: r.casesOpened,
    },
    attempts: r.attempts,
    error: r.error,
    createdAt: r.createdAt.toISOString(),
    startedAt: iso(r.startedAt),
    completedAt: iso(r.completedAt),
  };
}

/** The organization's re-screen runs, newest first. */
export async function listMonitoringRuns(ctx: ServiceContext, query: MonitoringRunsQuery) {
  const runs = await ctx.db.screeningMonitorRun.findMany({
    where: { orgId: ctx.org.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
  });
  const subjects = runs.some((r) => r.status === "queued" || r.status === "running") ? await subjectCount(ctx) : 0;
  return { runs: runs.map((r) => runView(r, subjects)) };
}

/** One run of the organization; another organization's (or a malformed id) is 404. */
export async function getMonitoringRun(ctx: ServiceContext, runId: string) {
  const run = isUuid(runId) ? await ctx.db.screeningMonitorRun.findFirst({ where: { id: runId, orgId: ctx.org.id } }) : null;
  if (!run) throw notFound("The re-screen run");
  return runView(run, run.status === "queued" || run.status === "running" ? await subjectCount(ctx) : 0);
}

export async function getMonitoringSetting(ctx: ServiceContext) {
  const s = await ctx.db.screeningMonitorSetting.findUnique({ where: { orgId: ctx.org.id } });
  return { frequency: s?.frequency ?? "off", updatedBy: s?.updatedBy ?? null, updatedAt: iso(s?.updatedAt ?? null) };
}

/**
 * Turns the periodic re-screen of everyone on (daily, weekly) or off, audited. The job queues the
 * first run at its next tick, then one per UTC day or ISO week.
 */
export async function setMonitoringSetting(ctx: ServiceContext, input: MonitoringSettingInput) {
  return ctx.db.$transaction(async (tx) => {
    const before = await tx.screeningMonitorSetting.findUnique({ where: { orgId: ctx.org.id } });
    const by = actorId(ctx.actor);
    const s = await tx.screeningMonitorSetting.upsert({
      where: { orgId: ctx.org.id },
      create: { orgId: ctx.org.id, frequency: input.frequency, updatedBy: by },
      update: { frequency: input.frequency, updatedBy: by },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "screening.monitoring_updated",
        subjectType: "organization",
        subject: ctx.org.id,
        data: { frequency: input.frequency, previous: before?.frequency ?? "off" },
      },
    );
    return { frequency: s.frequency, updatedBy: s.updatedBy, updatedAt: s.updatedAt.toISOString() };
  });
}
