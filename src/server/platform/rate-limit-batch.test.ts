import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getDb } from "../db/client";
import { BatchedWindows, maxUnsynced } from "./rate-limit-batch";

/** Two counters on the same database stand for two instances (each flushes on its own). */
async function hammer(limit: number, hits: number, intervalMs: number) {
  const db = await getDb();
  const bucket = `test:${randomUUID()}`;
  const now = new Date();
  const a = new BatchedWindows(intervalMs);
  const b = new BatchedWindows(intervalMs);
  const answers = await Promise.all(Array.from({ length: hits }, (_, i) => (i % 3 === 0 ? b : a).hit(db, bucket, limit, 3600, now)));
  await Promise.all([a.close(), b.close()]);
  const rows = await db.rateLimitWindow.findMany({ where: { bucket } });
  return {
    answers,
    admitted: answers.filter((h) => !h.exceeded).length,
    written: rows.map((r) => r.count),
    flushes: a.flushes + b.flushes,
  };
}

describe("in-process rate-limit windows reconciled in batches", () => {
  it("admits at least the limit and at most the documented bound over two instances, and writes every hit once", async () => {
    const { admitted, written, flushes, answers } = await hammer(600, 1000, 250);
    expect(admitted).toBeGreaterThanOrEqual(600);
    expect(admitted).toBeLessThanOrEqual(600 + 2 * (maxUnsynced(600) - 1));
    expect(written).toEqual([1000]);
    // Far fewer writes than hits: the point of batching.
    expect(flushes).toBeLessThan(1000 / 4);
    for (const h of answers) expect(h.remaining).toBe(Math.max(0, 600 - h.count));
  });

  it("is exact when the limit is small (every hit judged on its written position)", async () => {
    const { admitted, written, answers } = await hammer(40, 100, 250);
    expect(maxUnsynced(40)).toBe(1);
    expect(admitted).toBe(40);
    expect(written).toEqual([100]);
    expect(new Set(answers.map((h) => h.count)).size).toBe(100);
  });

  it("counts each fixed window on its own row", async () => {
    const db = await getDb();
    const bucket = `test:${randomUUID()}`;
    const w = new BatchedWindows();
    const t0 = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const first = await w.hit(db, bucket, 10, 60, new Date(t0.getTime() + 1_000));
    const second = await w.hit(db, bucket, 10, 60, new Date(t0.getTime() + 61_000));
    await w.close();
    expect([first.count, second.count]).toEqual([1, 1]);
    expect(second.resetAt.getTime() - first.resetAt.getTime()).toBe(60_000);
    expect((await db.rateLimitWindow.findMany({ where: { bucket } })).map((r) => r.count)).toEqual([1, 1]);
  });
});
