import { parentPort } from "node:worker_threads";
import pg from "pg";
import { type ChunkWalk, walkChunks } from "./segment";

/**
 * A segment thread's job: walk from <= seq < to of an organization's chain (segment.ts) on this
 * thread's own session, in the snapshot `snapshot` (pg_export_snapshot of the verification's
 * first session, which stays open until the answer is in).
 */
export type SegmentJob = { id: number; url: string; snapshot: string; orgId: string; from: number; to: number };
/** The walk, or why there is none (the caller then walks the range itself). */
export type SegmentAnswer = { id: number; walk?: ChunkWalk; error?: string };

let session: pg.Client | null = null;

async function connected(url: string): Promise<pg.Client> {
  if (session) return session;
  const client = new pg.Client({ connectionString: url });
  // A session that breaks while idle is dropped; the next job connects again.
  client.on("error", () => {
    if (session === client) session = null;
  });
  await client.connect();
  session = client;
  return client;
}

async function walk(job: SegmentJob): Promise<SegmentAnswer> {
  if (!/^[0-9A-F-]+$/i.test(job.snapshot)) return { id: job.id, error: "unexpected snapshot id" };
  let client: pg.Client | undefined;
  try {
    client = await connected(job.url);
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      await client.query(`SET TRANSACTION SNAPSHOT '${job.snapshot}'`);
      await client.query("SET LOCAL jit = off");
      return { id: job.id, walk: await walkChunks(client, job.orgId, job.from, job.to, { thread: null }) };
    } finally {
      await client.query("COMMIT");
    }
  } catch (err) {
    // The session's state is unknown after a failure: the next job gets a new one.
    if (client && session === client) {
      session = null;
      void client.end().catch(() => undefined);
    }
    return { id: job.id, error: (err as Error).message };
  }
}

// Jobs run one after another: a session runs one transaction at a time.
let queue = Promise.resolve();
parentPort?.on("message", (m: SegmentJob) => {
  queue = queue.then(async () => parentPort!.postMessage(await walk(m)));
});
