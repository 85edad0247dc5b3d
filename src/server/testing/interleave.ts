import pg from "pg";
import type { DbOrTx } from "../db/client";

/**
 * Holds a row lock from a connection of the test's own, so a test can put parallel requests in a
 * known order instead of hoping the scheduler does: start the requests, wait until `n` of them are
 * queued behind the lock (`waitForWaiters`), then `release`. Everything a request does before it
 * asks for the lock has happened by then; everything after runs one request at a time.
 */
export async function holdLock(lockSql: string, params: unknown[] = []) {
  const conn = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await conn.connect();
  await conn.query("BEGIN");
  const locked = await conn.query(lockSql, params);
  if (locked.rowCount === 0) throw new Error(`holdLock: nothing to lock (${lockSql})`);
  const pid = (await conn.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  let open = true;
  const release = async () => {
    if (!open) return;
    open = false;
    await conn.query("COMMIT").finally(() => conn.end());
  };
  return {
    /** Resolves once `n` other sessions wait for a lock this connection holds (fails after `timeoutMs`). */
    async waitForWaiters(n: number, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      const probe = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await probe.connect();
      try {
        for (;;) {
          // Waiters queue behind each other too (the second waits for the first's tuple lock), so
          // count everything blocked by this connection directly or through another waiter.
          const { rows } = await probe.query<{ n: number }>(
            `WITH RECURSIVE waits AS (
               SELECT pid, pg_blocking_pids(pid) AS by FROM pg_stat_activity WHERE wait_event_type = 'Lock'),
             queued AS (
               SELECT pid FROM waits WHERE $1 = ANY(by)
               UNION SELECT w.pid FROM waits w JOIN queued q ON q.pid = ANY(w.by))
             SELECT count(*)::int AS n FROM queued`,
            [pid],
          );
          if (rows[0]!.n >= n) return;
          if (Date.now() > deadline) {
            await release();
            throw new Error(`holdLock: ${rows[0]!.n} of ${n} sessions queued after ${timeoutMs} ms`);
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await probe.end();
      }
    },
    release,
  };
}

/** Holds the lock every AML transition takes first: the person's row (services/aml/case-records.ts, lockPerson). */
export const holdPersonLock = (personId: string) => holdLock(`SELECT id FROM people WHERE id = $1::uuid FOR NO KEY UPDATE`, [personId]);

/**
 * Resolves once a session of the test database waits for a lock while running a statement whose
 * text contains every one of `fragments` (pg_stat_activity shows the statement being run): a test
 * holding a row in its own transaction knows the request it started has reached that statement.
 */
export async function untilStatementWaits(db: DbOrTx, fragments: string[], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  const like = fragments.map((f) => `%${f}%`);
  for (;;) {
    const [w] = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE ALL(${like}::text[])`;
    if (w!.n > 0) return;
    if (Date.now() > deadline) throw new Error(`no statement containing ${fragments.join(", ")} waited within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
