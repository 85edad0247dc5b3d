import { parentPort } from "node:worker_threads";
import pg from "pg";
import { nativeDigests } from "./native-digests";
import { type ChunkWalk, walkChunks } from "./segment";

/**
 * A segment thread's job: walk from <= seq < to of an organization's chain (segment.ts) on this
 * thread's own session, in the snapshot `snapshot` (pg_export_snapshot of the verification's
 * first session, which stays open until the answer is in); `native`: hash with the native digest
 * module where it was built (native-digests.ts).
 */
export type SegmentJob = { id: number; url: string; snapshot: string; orgId: string; from: number; to: number; native?: boolean };
/** What the caller sends: a job, or word that it no longer waits for one (segment-threads.ts). */
export type SegmentMessage = SegmentJob | { cancel: number };
/**
 * What the thread sends: that it has loaded; that a job's transaction has joined the snapshot
 * (the walk is under way); or a job's end: the walk, or why there is none (the caller then walks
 * the range itself), or that it was not walked as the caller had stopped waiting.
 */
export type SegmentAnswer =
  | { ready: true }
  | { id: number; started: true }
  | { id: number; skipped: true }
  | { id: number; walk?: ChunkWalk; error?: string };

let session: { client: pg.Client; url: string } | null = null;
/** Jobs received and not ended. */
const pending = new Set<number>();
/** Jobs the caller stopped waiting for: not walked when their turn comes. */
const cancelled = new Set<number>();

async function connected(url: string): Promise<pg.Client> {
  if (session?.url === url) return session.client;
  if (session) void session.client.end().catch(() => undefined);
  session = null;
  // Named so that an operator can tell the threads' sessions in pg_stat_activity (docs/operations.md, "Sizing").
  const client = new pg.Client({ connectionString: url, application_name: "bi-audit-segment" });
  // A session that breaks while idle is dropped; the next job connects again.
  client.on("error", () => {
    if (session?.client === client) session = null;
  });
  await client.connect();
  session = { client, url };
  return client;
}

async function walk(job: SegmentJob): Promise<SegmentAnswer> {
  let client: pg.Client | undefined;
  try {
    if (!/^[0-9A-F-]+$/i.test(job.snapshot)) return { id: job.id, error: "unexpected snapshot id" };
    if (cancelled.has(job.id)) return { id: job.id, skipped: true };
    client = await connected(job.url);
    // Behind a pooler whose server connections are all taken, BEGIN waits for one: the caller
    // may have stopped waiting meanwhile, and the snapshot may be gone.
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      if (cancelled.has(job.id)) return { id: job.id, skipped: true };
      await client.query(`SET TRANSACTION SNAPSHOT '${job.snapshot}'`);
      await client.query("SET LOCAL jit = off");
      parentPort?.postMessage({ id: job.id, started: true } satisfies SegmentAnswer);
      const native = job.native ? nativeDigests() : null;
      return { id: job.id, walk: await walkChunks(client, job.orgId, job.from, job.to, { thread: null, native }) };
    } finally {
      await client.query("COMMIT");
    }
  } catch (err) {
    // The session's state is unknown after a failure: the next job gets a new one.
    if (client && session?.client === client) {
      session = null;
      void client.end().catch(() => undefined);
    }
    return { id: job.id, error: (err as Error).message };
  } finally {
    pending.delete(job.id);
    cancelled.delete(job.id);
  }
}

// Jobs run one after another: a session runs one transaction at a time. A cancellation is taken
// at once, so that a job waiting in the queue or for its transaction is not walked.
let queue = Promise.resolve();
parentPort?.on("message", (m: SegmentMessage) => {
  if ("cancel" in m) {
    if (pending.has(m.cancel)) cancelled.add(m.cancel);
    return;
  }
  pending.add(m.id);
  queue = queue.then(async () => parentPort!.postMessage(await walk(m)));
});
parentPort?.postMessage({ ready: true } satisfies SegmentAnswer);
