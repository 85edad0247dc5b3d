import type { DbOrTx } from "../db/client";

export type WindowHit = { count: number; limit: number; remaining: number; resetAt: Date; resetSec: number; exceeded: boolean };

/**
 * Counts one hit in a fixed window shared by every instance (an upsert on a unique row, so two
 * instances never double count or lose a hit). The caller decides what exceeding means.
 */
export async function hitWindow(db: DbOrTx, bucket: string, limit: number, windowSec: number, now = new Date()): Promise<WindowHit> {
  const windowMs = windowSec * 1000;
  const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const resetAt = new Date(start.getTime() + windowMs);
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO rate_limit_windows (bucket, "windowStart", count, "expiresAt")
    VALUES (${bucket}, ${start}, 1, ${resetAt})
    ON CONFLICT (bucket, "windowStart") DO UPDATE SET count = rate_limit_windows.count + 1
    RETURNING count`;
  const count = Number(rows[0]!.count);
  const resetSec = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  return { count, limit, remaining: Math.max(0, limit - count), resetAt, resetSec, exceeded: count > limit };
}

/**
 * Counts one hit in each of several fixed windows in ONE statement (hitWindow's upsert for every
 * bucket at once, in bucket order so two callers lock the same rows in the same order). Every
 * bucket is counted, whether or not another is exceeded. Answers in the order given.
 */
export async function hitWindows(
  db: DbOrTx,
  hits: { bucket: string; limit: number; windowSec: number }[],
  now = new Date(),
): Promise<WindowHit[]> {
  const windows = hits.map((h) => {
    const windowMs = h.windowSec * 1000;
    const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
    return { ...h, start, resetAt: new Date(start.getTime() + windowMs) };
  });
  const ordered = [...windows].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
  const rows = await db.$queryRaw<{ bucket: string; count: number }[]>`
    INSERT INTO rate_limit_windows (bucket, "windowStart", count, "expiresAt")
    SELECT b, to_timestamp(s / 1000.0) AT TIME ZONE 'UTC', 1, to_timestamp(e / 1000.0) AT TIME ZONE 'UTC'
      FROM unnest(${ordered.map((w) => w.bucket)}::text[], ${ordered.map((w) => w.start.getTime())}::float8[],
                  ${ordered.map((w) => w.resetAt.getTime())}::float8[]) WITH ORDINALITY AS t(b, s, e, n)
    ORDER BY n
    ON CONFLICT (bucket, "windowStart") DO UPDATE SET count = rate_limit_windows.count + 1
    RETURNING bucket, count`;
  const counts = new Map(rows.map((r) => [r.bucket, Number(r.count)]));
  return windows.map((w) => {
    const count = counts.get(w.bucket) ?? 1;
    const resetSec = Math.max(1, Math.ceil((w.resetAt.getTime() - now.getTime()) / 1000));
    return { count, limit: w.limit, remaining: Math.max(0, w.limit - count), resetAt: w.resetAt, resetSec, exceeded: count > w.limit };
  });
}

/** Reads the current count without adding a hit. */
export async function peekWindow(db: DbOrTx, bucket: string, windowSec: number, now = new Date()): Promise<number> {
  const windowMs = windowSec * 1000;
  const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const row = await db.rateLimitWindow.findUnique({ where: { bucket_windowStart: { bucket, windowStart: start } } });
  return row?.count ?? 0;
}

export async function purgeExpiredWindows(db: DbOrTx, now = new Date()): Promise<number> {
  const { count } = await db.rateLimitWindow.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
