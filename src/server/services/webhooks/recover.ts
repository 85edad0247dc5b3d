import type { Webhook, WebhookRecoverJob } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import type { Tx } from "../../db/client";
import { conflict, notFound, validationError } from "../../errors";
import { appendAudit } from "../audit";
import type { RecoverInput } from "./recover.schema";

const RESENDABLE = ["failed", "dead"] as const;

export const recoverJobView = (j: WebhookRecoverJob) => ({
  id: j.id,
  webhookId: j.webhookId,
  since: j.since.toISOString(),
  until: j.until.toISOString(),
  state: j.state,
  total: j.total,
  done: j.done,
  delivered: j.delivered,
  createdAt: j.createdAt.toISOString(),
  completedAt: j.completedAt?.toISOString() ?? null,
});

/** The webhook, locked for the rest of the transaction, or 404 when it is not the caller's. */
async function lockWebhook(tx: Tx, ctx: ServiceContext, id: string) {
  const [hook] = await tx.$queryRaw<Webhook[]>`
    SELECT * FROM webhooks WHERE id = ${id}::uuid AND "orgId" = ${ctx.org.id}::uuid FOR UPDATE`;
  if (!hook) throw notFound("The webhook");
  return hook;
}

/**
 * Queues one job that sends every failed or dead delivery of the webhook created in
 * [since, until) again, oldest event first. The same request again (same since, same until or
 * again none) answers the job it created, running or completed, and queues nothing; another
 * range while a job of this webhook is still going is refused, so no delivery is recovered twice
 * at once. The webhook row lock orders concurrent requests.
 */
export async function requestRecover(ctx: ServiceContext, webhookId: string, input: RecoverInput) {
  const since = new Date(input.since);
  const untilRequested = input.until ? new Date(input.until) : null;
  if (since.getTime() >= ctx.now().getTime()) throw validationError([{ path: ["since"], message: "must be in the past" }]);
  return ctx.db.$transaction(async (tx) => {
    const hook = await lockWebhook(tx, ctx, webhookId);
    const same = await tx.webhookRecoverJob.findFirst({
      where: { webhookId, since, untilRequested },
      orderBy: { createdAt: "desc" },
    });
    if (same) return recoverJobView(same);
    if (!hook.active) throw conflict("webhook_inactive", "The webhook is not active; enable it before recovering its deliveries.");
    const going = await tx.webhookRecoverJob.findFirst({ where: { webhookId, state: { in: ["queued", "running"] } } });
    if (going)
      throw conflict("recover_running", "A recover of this webhook is still running; wait for it to complete.", { jobId: going.id });
    const until = untilRequested ?? ctx.now();
    const total = await tx.webhookDelivery.count({
      where: { webhookId, orgId: ctx.org.id, status: { in: [...RESENDABLE] }, createdAt: { gte: since, lt: until } },
    });
    const job = await tx.webhookRecoverJob.create({
      data: {
        orgId: ctx.org.id,
        webhookId,
        since,
        until,
        untilRequested,
        total,
        requestedBy: actorId(ctx.actor),
        ...(total === 0 ? { state: "completed", completedAt: ctx.now() } : {}),
      },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "webhook.recover_requested",
        subjectType: "webhook",
        subject: webhookId,
        data: { jobId: job.id, since: since.toISOString(), until: until.toISOString(), total },
      },
    );
    return recoverJobView(job);
  });
}

export async function getRecoverJob(ctx: ServiceContext, webhookId: string, jobId: string) {
  const job = await ctx.db.webhookRecoverJob.findFirst({ where: { id: jobId, webhookId, orgId: ctx.org.id } });
  if (!job) throw notFound("The recover job");
  return recoverJobView(job);
}

/** The webhook's recover jobs, newest first. */
export async function listRecoverJobs(ctx: ServiceContext, webhookId: string) {
  const hook = await ctx.db.webhook.findFirst({ where: { id: webhookId, orgId: ctx.org.id }, select: { id: true } });
  if (!hook) throw notFound("The webhook");
  const jobs = await ctx.db.webhookRecoverJob.findMany({
    where: { webhookId, orgId: ctx.org.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 20,
  });
  return { jobs: jobs.map(recoverJobView) };
}
