import { env } from "@/env";
import type { WebhookRecoverJob } from "@/generated/prisma/client.ts";
import { type Db, Prisma } from "../../db/client";
import * as workQueue from "../../platform/work-queue";
import { appendAudit } from "../audit";
import { type AttemptOptions, attemptDelivery, claimForResend, leaseMs } from "./delivery";

const RUNNER_ACTOR = "system:webhook-recover";
/** How long one run keeps a job before handing it back, so one long recover does not hold a runner. */
const RUN_BUDGET_MS = 20_000;

/** Recover jobs as a leased queue: queued → running (renewed at every delivery, handed back at the run budget) → completed. */
export const recoverQueue: workQueue.WorkQueue = {
  table: "webhook_recover_jobs",
  org: "orgId",
  status: "state",
  waiting: ["queued"],
  running: "running",
  done: "completed",
  lease: "lockedUntil",
  token: "leaseToken",
  claims: "claims",
  order: "createdAt",
};

/** Timestamps travel as the text of the stored `timestamp(3)` values, so no time zone conversion touches them. */
type Claimed = workQueue.Lease &
  Pick<WebhookRecoverJob, "orgId" | "webhookId" | "cursorId"> & {
    since: string;
    until: string;
    cursorAt: string | null;
  };

/** Claims the oldest queued job, or a running one whose runner let go or died (lease passed). */
export async function claimRecoverJob(db: Db, lease: number, orgId: string | null): Promise<Claimed | null> {
  const [job] = await workQueue.claim<Omit<Claimed, keyof workQueue.Lease>>(db, recoverQueue, {
    limit: 1,
    leaseMs: lease,
    orgIds: orgId ? [orgId] : null,
    set: Prisma.sql`"startedAt" = COALESCE(q."startedAt", now() AT TIME ZONE 'UTC')`,
    select: Prisma.sql`q."orgId"::text AS "orgId", q."webhookId"::text AS "webhookId", q.since::text AS since, q.until::text AS until,
      q."cursorEventAt"::text AS "cursorAt", q."cursorId"::text AS "cursorId"`,
  });
  return job ?? null;
}

type Next = { id: string; eventAt: string };

/** The next failed or dead delivery in the range after the cursor, in event order. */
async function nextDelivery(db: Db, job: Claimed, cursor: { at: string; id: string } | null): Promise<Next | null> {
  const rows = await db.$queryRaw<Next[]>`
    SELECT id::text AS id, "eventAt"::text AS "eventAt" FROM webhook_deliveries
    WHERE "webhookId" = ${job.webhookId}::uuid AND "orgId" = ${job.orgId}::uuid
      AND "createdAt" >= ${job.since}::timestamp(3) AND "createdAt" < ${job.until}::timestamp(3)
      AND status IN ('failed', 'dead') AND body IS NOT NULL
      AND (${cursor?.at ?? null}::timestamp(3) IS NULL OR ("eventAt", id) > (${cursor?.at ?? null}::timestamp(3), ${cursor?.id ?? null}::uuid))
    ORDER BY "eventAt", id
    LIMIT 1`;
  return rows[0] ?? null;
}

/** Records one delivery sent and renews the lease; false when another runner took the job over. */
function advance(db: Db, job: Claimed, d: Next, delivered: boolean, lease: number): Promise<boolean> {
  return workQueue.renew(db, recoverQueue, job, {
    leaseMs: lease,
    set: Prisma.sql`"cursorEventAt" = ${d.eventAt}::timestamp(3), "cursorId" = ${d.id}::uuid, done = q.done + 1,
      delivered = q.delivered + ${delivered ? 1 : 0}`,
  });
}

/**
 * Completes the job and audits it in one transaction (fenced like `advance`). Run to its end, the
 * range holds nothing more to send, so `done` becomes `total` (some may have been delivered by
 * their own retries meanwhile); stopped because the webhook was switched off, `done` stays as is.
 */
async function complete(db: Db, job: Claimed, stopped = false) {
  await db.$transaction(async (tx) => {
    const ended = await workQueue.finish(tx, recoverQueue, job, {
      set: stopped
        ? Prisma.sql`"completedAt" = now() AT TIME ZONE 'UTC'`
        : Prisma.sql`"completedAt" = now() AT TIME ZONE 'UTC', total = GREATEST(q.total, q.done), done = GREATEST(q.total, q.done)`,
    });
    if (!ended) return;
    const row = await tx.webhookRecoverJob.findUniqueOrThrow({ where: { id: job.id } });
    await appendAudit(
      tx,
      { orgId: job.orgId, actor: RUNNER_ACTOR },
      {
        action: "webhook.recover_completed",
        subjectType: "webhook",
        subject: job.webhookId,
        data: {
          jobId: job.id,
          total: row.total,
          done: row.done,
          delivered: row.delivered,
          ...(stopped ? { stopped: "webhook_inactive" } : {}),
        },
      },
    );
  });
}

/**
 * Works one claimed job: sends its deliveries one at a time, each through the usual signed
 * delivery path, waiting for each answer before the next so they reach the receiver in event
 * order. A delivery that fails again goes on with the usual retries. Stops at the run budget
 * (the job is handed back with its cursor) or when the lease was lost.
 */
async function work(db: Db, job: Claimed, opts: AttemptOptions): Promise<void> {
  const lease = leaseMs(env().WEBHOOK_TIMEOUT_MS);
  const deadline = Date.now() + RUN_BUDGET_MS;
  let cursor = job.cursorAt && job.cursorId ? { at: job.cursorAt, id: job.cursorId } : null;
  for (;;) {
    const next = await nextDelivery(db, job, cursor);
    if (!next) return complete(db, job);
    const claim = await claimForResend(db, next.id, lease);
    if (!claim && !(await db.webhook.count({ where: { id: job.webhookId, active: true } }))) return complete(db, job, true);
    // Held by a worker sending it right now: skip it rather than send it twice.
    const status = claim ? await attemptDelivery(db, claim, opts) : null;
    if (!(await advance(db, job, next, status === "delivered", lease))) return;
    cursor = { at: next.eventAt, id: next.id };
    if (Date.now() > deadline) {
      await workQueue.release(db, recoverQueue, job);
      return;
    }
  }
}

/** Claims and works up to `limit` recover jobs, one after the other. */
export async function runRecoverJobs(db: Db, opts: AttemptOptions & { limit?: number; orgId?: string } = {}): Promise<number> {
  let n = 0;
  for (; n < (opts.limit ?? 1); n++) {
    const job = await claimRecoverJob(db, leaseMs(env().WEBHOOK_TIMEOUT_MS), opts.orgId ?? null);
    if (!job) break;
    await work(db, job, opts);
  }
  return n;
}
