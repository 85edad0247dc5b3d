import type { ExportJob } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import { type Db, Prisma, type Tx } from "../../db/client";
import { notFound } from "../../errors";
import { logger } from "../../log";
import { isUuid } from "../../platform/ids";
import * as workQueue from "../../platform/work-queue";
import type { ExportRequestInput } from "./audit.schema";
import { appendAudit } from "./chain";
import { buildExportArtifact, ExportFailure } from "./export-artifact";

export { verifyExportArtifact } from "./export-verify";

/** Runs of one job (crashes and unexpected errors) before it is marked failed. */
export const MAX_EXPORT_ATTEMPTS = 3;
const RUNNER_ACTOR = "system:export-runner";

type JobSummaryRow = Pick<ExportJob, "id" | "status" | "from" | "to" | "createdAt" | "completedAt" | "error">;
const summarySelect = { id: true, status: true, from: true, to: true, createdAt: true, completedAt: true, error: true } as const;

const jobSummary = (j: JobSummaryRow) => ({
  jobId: j.id,
  status: j.status,
  from: j.from.toISOString(),
  to: j.to.toISOString(),
  createdAt: j.createdAt.toISOString(),
  ...(j.completedAt ? { completedAt: j.completedAt.toISOString() } : {}),
  ...(j.status === "failed" && j.error ? { error: j.error } : {}),
});

/** Queues an export of [from, to); the request is audited in the same transaction as the job row. */
export async function requestExport(ctx: ServiceContext, input: ExportRequestInput) {
  const from = new Date(input.from);
  const to = new Date(input.to);
  return ctx.db.$transaction(async (tx) => {
    const job = await tx.exportJob.create({ data: { orgId: ctx.org.id, from, to, requestedBy: actorId(ctx.actor) } });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "compliance.export_requested",
        subjectType: "export_job",
        subject: job.id,
        data: { from: from.toISOString(), to: to.toISOString() },
      },
    );
    return { jobId: job.id, status: "queued" as const };
  });
}

/** Recent jobs of the caller's organization, newest first, without their artifacts. */
export async function listExports(ctx: ServiceContext, query: { limit: number }) {
  const jobs = await ctx.db.exportJob.findMany({
    where: { orgId: ctx.org.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
    select: summarySelect,
  });
  return { exports: jobs.map(jobSummary) };
}

/** One job with its artifact once completed. An id that is not a uuid cannot exist, so it is 404 like any other. */
export async function getExport(ctx: ServiceContext, jobId: string) {
  const job = isUuid(jobId)
    ? await ctx.db.exportJob.findFirst({ where: { id: jobId, orgId: ctx.org.id }, select: { ...summarySelect, artifact: true } })
    : null;
  if (!job) throw notFound("The export job");
  return { ...jobSummary(job), ...(job.status === "completed" && job.artifact ? { artifact: job.artifact } : {}) };
}

/** Export jobs as a leased queue: queued → running (a 5-minute lease) → completed | failed. */
export const exportQueue: workQueue.WorkQueue = {
  table: "export_jobs",
  org: "orgId",
  status: "status",
  waiting: ["queued"],
  running: "running",
  done: "completed",
  failed: "failed",
  lease: "lockedUntil",
  token: "leaseToken",
  claims: "attempts",
  order: "createdAt",
};
const LEASE_MS = 5 * 60_000;

type Claim = workQueue.Lease & { attempts: number };

/**
 * Claims the oldest queued job, or one whose runner's 5-minute lease ran out (that runner died).
 * SKIP LOCKED lets several instances claim at once without ever handing one job to two of them.
 */
export async function claimExportJob(db: Db, orgId: string | null): Promise<Claim | null> {
  const [claim] = await workQueue.claim<{ attempts: number }>(db, exportQueue, {
    limit: 1,
    leaseMs: LEASE_MS,
    orgIds: orgId ? [orgId] : null,
    set: Prisma.sql`"startedAt" = now() AT TIME ZONE 'UTC'`,
    select: Prisma.sql`q.attempts`,
  });
  return claim ?? null;
}

/**
 * Ends a claimed job and audits it, in one transaction. A runner whose lease was taken over
 * changes nothing.
 */
async function finish(db: Db, claim: Claim, end: (tx: Tx) => Promise<boolean>, audit: { action: string; data: Prisma.InputJsonObject }) {
  await db.$transaction(async (tx) => {
    if (!(await end(tx))) return;
    const job = await tx.exportJob.findUniqueOrThrow({ where: { id: claim.id }, select: { orgId: true } });
    await appendAudit(
      tx,
      { orgId: job.orgId, actor: RUNNER_ACTOR },
      { action: audit.action, subjectType: "export_job", subject: claim.id, data: audit.data },
    );
  });
}

async function processJob(db: Db, claim: Claim): Promise<void> {
  const fail = (error: string) =>
    finish(
      db,
      claim,
      (tx) => workQueue.fail(tx, exportQueue, claim, { set: Prisma.sql`error = ${error}, "completedAt" = now() AT TIME ZONE 'UTC'` }),
      { action: "compliance.export_failed", data: { error } },
    );
  if (claim.attempts > MAX_EXPORT_ATTEMPTS) return fail(`The export did not finish after ${MAX_EXPORT_ATTEMPTS} attempts.`);
  const job = await db.exportJob.findUniqueOrThrow({ where: { id: claim.id }, select: { orgId: true, from: true, to: true } });
  try {
    const artifact = await buildExportArtifact(db, job);
    const cp = artifact.checkpoint;
    await finish(
      db,
      claim,
      (tx) =>
        workQueue.finish(tx, exportQueue, claim, {
          set: Prisma.sql`artifact = ${JSON.stringify(artifact)}::jsonb, error = NULL, "completedAt" = now() AT TIME ZONE 'UTC'`,
        }),
      {
        action: "compliance.export_completed",
        data: { count: cp.count, firstSeq: cp.firstSeq, lastSeq: cp.lastSeq, headHash: cp.headHash },
      },
    );
  } catch (err) {
    if (err instanceof ExportFailure) return fail(err.message);
    logger().error({ jobId: claim.id, attempt: claim.attempts, err: { message: (err as Error)?.message } }, "export job failed");
    if (claim.attempts >= MAX_EXPORT_ATTEMPTS) return fail("The export failed on our side; request it again.");
    // Back to the queue for another try.
    await workQueue.fail(db, exportQueue, claim, { retryInMs: 0 });
  }
}

/**
 * Claims and runs up to `limit` export jobs one after another; returns the ids this runner took.
 * Called every ~2 s by the job runner of each instance, and directly by tests, which pass `orgId`
 * so they only ever run their own organization's jobs.
 */
export async function runExportJobs(db: Db, opts: { limit?: number; orgId?: string } = {}): Promise<{ processed: string[] }> {
  const processed: string[] = [];
  const limit = opts.limit ?? 5;
  while (processed.length < limit) {
    const claim = await claimExportJob(db, opts.orgId ?? null);
    if (!claim) break;
    processed.push(claim.id);
    await processJob(db, claim);
  }
  return { processed };
}
