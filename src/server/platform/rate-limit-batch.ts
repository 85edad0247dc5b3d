import type { Db } from "../db/client";
import type { WindowHit } from "./rate-limit";

/**
 * Fixed windows counted in process and reconciled with the shared `rate_limit_windows` rows in
 * one batched upsert every FLUSH_INTERVAL_MS (docs/performance.md): the hot per-request limits (plan quota,
 * per-IP backstop) no longer take a row lock on every request. `services/rate-limit.ts` keeps the
 * exact per-hit windows for the low-volume limits (OTP sends, KYC starts, sign-in).
 *
 * Each instance knows the shared count as of its last flush (`known`) plus its own hits not yet
 * written (`unsynced`). A hit is admitted locally only while `unsynced` stays below
 * `maxUnsynced(limit)` = max(1, floor(limit / 50)); beyond that, and for the first hit of a window
 * on this instance, the hit waits for a flush and is judged on its exact position in the shared
 * count. Hence, per window and bucket, over N instances:
 *
 *     admitted ≤ limit + N × (maxUnsynced(limit) − 1)      (≤ 2% of the limit per instance)
 *
 * because an instance's locally admitted hits that land beyond the limit are all among its
 * unsynced hits when its first flush after the shared count reached the limit returns (≤
 * maxUnsynced − 1 of them), and a hit judged on its exact position is admitted only at or below
 * the limit. Every hit, admitted or refused, is written exactly once; an instance killed with
 * SIGKILL loses only its unsynced hits (≤ maxUnsynced − 1 admitted ones per bucket, plus those
 * refused since the last flush), never a written one. No hit is refused while the shared count is
 * within the limit (an instance's view never exceeds the true count).
 */
export const FLUSH_INTERVAL_MS = 250;

export const maxUnsynced = (limit: number) => Math.max(1, Math.floor(limit / 50));

type Waiter = { index: number; resolve: (position: number) => void; reject: (err: unknown) => void };

type Entry = {
  bucket: string;
  start: Date;
  resetAt: Date;
  /** The shared count as returned by this instance's last flush of the entry. */
  known: number;
  /** Hits not yet sent, and hits in the flush under way. */
  pending: number;
  inflight: number;
  /** Hits that wait to be judged on their exact position. */
  waiters: Waiter[];
  synced: boolean;
};

export class BatchedWindows {
  private entries = new Map<string, Entry>();
  private db?: Db;
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private again = false;
  flushes = 0;

  constructor(readonly intervalMs = FLUSH_INTERVAL_MS) {}

  /** Counts one hit in the fixed window of `bucket`; refused hits count too, as in the shared windows. */
  async hit(db: Db, bucket: string, limit: number, windowSec: number, now = new Date()): Promise<WindowHit> {
    this.db ??= db;
    this.schedule();
    const windowMs = windowSec * 1000;
    const startMs = Math.floor(now.getTime() / windowMs) * windowMs;
    const id = `${bucket}\u0000${startMs}`;
    let e = this.entries.get(id);
    if (!e) {
      e = {
        bucket,
        start: new Date(startMs),
        resetAt: new Date(startMs + windowMs),
        known: 0,
        pending: 0,
        inflight: 0,
        waiters: [],
        synced: false,
      };
      this.entries.set(id, e);
    }
    e.pending++;
    let count: number;
    if (!e.synced || e.waiters.length > 0 || e.pending + e.inflight >= maxUnsynced(limit)) {
      // Judged exactly: this hit's own position in the shared count, once written.
      const index = e.pending;
      count = await new Promise<number>((resolve, reject) => {
        e.waiters.push({ index, resolve, reject });
        void this.flush().catch(() => undefined); // a failure reaches this hit through `reject`
      });
    } else {
      count = e.known + e.inflight + e.pending;
    }
    const resetSec = Math.max(1, Math.ceil((e.resetAt.getTime() - now.getTime()) / 1000));
    return { count, limit, remaining: Math.max(0, limit - count), resetAt: e.resetAt, resetSec, exceeded: count > limit };
  }

  /**
   * This instance's current count of `bucket`'s window, without counting a hit: for a quota header
   * on an answer that must not spend quota. 0 for a window this instance has not seen yet.
   */
  peek(bucket: string, limit: number, windowSec: number, now = new Date()): { remaining: number } {
    const windowMs = windowSec * 1000;
    const e = this.entries.get(`${bucket}\u0000${Math.floor(now.getTime() / windowMs) * windowMs}`);
    const count = e ? e.known + e.inflight + e.pending : 0;
    return { remaining: Math.max(0, limit - count) };
  }

  /** Writes every pending hit in one statement; concurrent callers share the flush under way (then one more). */
  flush(): Promise<void> {
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    this.flushing = (async () => {
      try {
        do {
          this.again = false;
          await this.flushOnce();
        } while (this.again);
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  private async flushOnce() {
    const db = this.db;
    const now = Date.now();
    const batch: { e: Entry; delta: number; waiters: Waiter[] }[] = [];
    for (const [id, e] of this.entries) {
      if (e.pending > 0) {
        batch.push({ e, delta: e.pending, waiters: e.waiters });
        e.inflight += e.pending;
        e.pending = 0;
        e.waiters = [];
      } else if (e.inflight === 0 && e.resetAt.getTime() < now) {
        this.entries.delete(id);
      }
    }
    if (!batch.length || !db) return;
    // A stable order: two instances flushing the same rows can never deadlock.
    batch.sort((a, b) => (a.e.bucket < b.e.bucket ? -1 : a.e.bucket > b.e.bucket ? 1 : a.e.start.getTime() - b.e.start.getTime()));
    try {
      const rows = await db.$queryRaw<{ bucket: string; startMs: number; count: number }[]>`
        INSERT INTO rate_limit_windows (bucket, "windowStart", count, "expiresAt")
        SELECT b, to_timestamp(s / 1000.0) AT TIME ZONE 'UTC', c, to_timestamp(x / 1000.0) AT TIME ZONE 'UTC'
        FROM unnest(${batch.map((x) => x.e.bucket)}::text[], ${batch.map((x) => x.e.start.getTime())}::float8[],
                    ${batch.map((x) => x.delta)}::int[], ${batch.map((x) => x.e.resetAt.getTime())}::float8[]) AS t(b, s, c, x)
        ON CONFLICT (bucket, "windowStart") DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
        RETURNING bucket, (extract(epoch from "windowStart") * 1000)::float8 AS "startMs", count`;
      this.flushes++;
      const byId = new Map(rows.map((r) => [`${r.bucket}\u0000${Math.round(Number(r.startMs))}`, Number(r.count)]));
      for (const { e, delta, waiters } of batch) {
        const total = byId.get(`${e.bucket}\u0000${e.start.getTime()}`) ?? e.known + delta;
        e.inflight -= delta;
        e.known = Math.max(e.known, total);
        e.synced = true;
        // This batch's hits hold positions total - delta + 1 … total, in arrival order.
        for (const w of waiters) w.resolve(total - delta + w.index);
      }
    } catch (err) {
      // Nothing was written: the hits go back to pending (retried by the next flush); waiters fail.
      for (const { e, delta, waiters } of batch) {
        e.inflight -= delta;
        e.pending += delta;
        for (const w of e.waiters) w.index += delta; // arrived meanwhile: now behind the returned hits
        for (const w of waiters) w.reject(err);
      }
      throw err;
    }
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  /** Shutdown: writes what is pending and stops the timer. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch(() => undefined);
  }
}

const g = globalThis as unknown as { __biWindows?: BatchedWindows };

/** The process's counters (one per instance). */
export function batchedWindows(): BatchedWindows {
  g.__biWindows ??= new BatchedWindows();
  return g.__biWindows;
}

export async function flushBatchedWindows(): Promise<void> {
  await g.__biWindows?.close();
}
