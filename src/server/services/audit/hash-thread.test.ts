import { createHash, hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { HashThread, hashMismatches } from "./hash-thread";

/** `n` entries laid out as a COPY row holds them (all bytes first, then the hashes), `wrong` of them with a hash of other bytes. */
function job(n: number, wrong: Set<number>) {
  const texts = Array.from({ length: n }, (_, i) => Buffer.from(`{"seq":${i},"é":"${"x".repeat(i % 50)}"}`));
  const bytes = Buffer.concat([
    ...texts,
    ...texts.map((t, i) =>
      Buffer.from(
        createHash("sha256")
          .update(wrong.has(i) ? "other" : t)
          .digest("hex"),
      ),
    ),
  ]);
  const ranges = new Int32Array(3 * n);
  let at = 0;
  let hashAt = texts.reduce((sum, t) => sum + t.length, 0);
  for (let i = 0; i < n; i++) {
    ranges.set([at, at + texts[i]!.length, i === 7 ? -1 : hashAt], 3 * i);
    at += texts[i]!.length;
    hashAt += 64;
  }
  return { bytes, ranges, expected: [...new Set([...wrong, ...(n > 7 ? [7] : [])])].sort((a, b) => a - b) };
}

describe("the hash thread of audit verification", () => {
  it("names the entries whose bytes do not hash to their stored hash, on the thread as here", async () => {
    const thread = new HashThread();
    const jobs = [job(1, new Set()), job(40, new Set([0, 3, 39])), job(512, new Set([511])), job(9, new Set())];
    for (const j of jobs) expect(hashMismatches(hash, j.bytes, j.ranges)).toEqual(j.expected);
    const answers = await Promise.all(jobs.map((j) => thread.check(j.bytes, j.bytes.length, j.ranges, (bad) => bad)));
    expect(answers).toEqual(jobs.map((j) => j.expected));
    expect(thread.answered).toBe(jobs.length);
  });

  it("hashes here what a thread that failed had waiting, and every job after it", async () => {
    // A thread that dies on its first job, as one that runs out of memory would.
    const thread = new HashThread(`require("node:worker_threads").parentPort.on("message", () => process.exit(3));`);
    const jobs = [job(30, new Set([2])), job(30, new Set()), job(30, new Set([29]))];
    expect(thread.takes()).toBe(true);
    const answers = await Promise.all(jobs.map((j) => thread.check(j.bytes, j.bytes.length, j.ranges, (bad) => bad)));
    expect(answers).toEqual(jobs.map((j) => j.expected));
    expect(thread.answered).toBe(0);
    expect(thread.takes()).toBe(false);
    const after = job(10, new Set([1]));
    expect(await thread.check(after.bytes, after.bytes.length, after.ranges, (bad) => bad)).toEqual(after.expected);
  });
});
