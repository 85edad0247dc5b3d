import { createHash, hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type ChunkLayout, chunkHolds, HashThread } from "./hash-thread";
import { nativeDigests } from "./native-digests";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * A chunk as a COPY row holds it, after `pad` other bytes: its entries' bytes joined by newlines,
 * their hashes joined by commas, and the prevHash before the first followed by every hash but the
 * last. `change` alters the texts (c, h or p) before they are laid out.
 */
function chunk(n: number, change: (t: { c: string; h: string; p: string }) => void = () => {}, pad = 11) {
  const texts = Array.from({ length: n }, (_, i) => `{"seq":${i},"é":"${"x".repeat(i % 50)}"}`);
  const hashes = texts.map(sha);
  const t = { c: texts.join("\n"), h: hashes.join(","), p: ["a".repeat(64), ...hashes.slice(0, -1)].join(",") };
  change(t);
  const [c, h, p] = [Buffer.from(t.c), Buffer.from(t.h), Buffer.from(t.p)];
  const bytes = Buffer.concat([Buffer.alloc(pad, 7), c, Buffer.alloc(4), h, Buffer.alloc(4), p]);
  const layout: ChunkLayout = {
    entries: n,
    c: pad,
    cEnd: pad + c.length,
    h: pad + c.length + 4,
    hEnd: pad + c.length + 4 + h.length,
    p: pad + c.length + 8 + h.length,
    pEnd: bytes.length,
  };
  return { bytes, layout };
}

/** Replaces the `k`-th of the values joined by `sep` in `text`. */
const replaceAt = (text: string, sep: string, k: number, value: string) =>
  text
    .split(sep)
    .map((v, i) => (i === k ? value : v))
    .join(sep);

describe("a chunk's check on the hash thread", () => {
  it("holds for intact chunks and for nothing else, however a value was changed", () => {
    const changes: [string, number, (t: { c: string; h: string; p: string }) => void][] = [
      ["intact", 1, () => {}],
      ["intact", 40, () => {}],
      ["intact", 512, () => {}],
      ["bytes changed", 40, (t) => void (t.c = t.c.replace('"seq":3,', '"seq":4,'))],
      ["a hash changed", 40, (t) => void (t.h = replaceAt(t.h, ",", 39, sha("other")))],
      ["a prevHash changed", 40, (t) => void (t.p = replaceAt(t.p, ",", 7, sha("other")))],
      ["the only prevHash cut short", 1, (t) => void (t.p = t.p.slice(0, 63))],
      // A separator inside a value: the values shift, and the count of separators is off by one.
      ["a newline in the bytes", 40, (t) => void (t.c = t.c.replace('"seq":5,', '"seq":5,\n'))],
      ["two entries' bytes as one", 40, (t) => void (t.c = t.c.replace("\n", " "))],
      // Hashes and links that hold for the pieces the newlines make, not for the entries.
      [
        "hashes of the pieces, not of the entries",
        2,
        (t) => {
          t.c = 'X\nY\n"Z"';
          t.h = `${sha("X")},${sha('Y\n"Z"')}`;
          t.p = `${"a".repeat(64)},${sha("X")}`;
        },
      ],
      ["a comma in a hash", 40, (t) => void (t.h = replaceAt(t.h, ",", 3, `${sha("a").slice(0, 31)},${sha("b").slice(0, 32)}`))],
      ["a comma in the first prevHash", 40, (t) => void (t.p = `${"a".repeat(30)},${t.p.slice(31)}`)],
      [
        "hash and prevHash one longer, one shorter",
        40,
        (t) => void (t.h = replaceAt(replaceAt(t.h, ",", 2, `${t.h.split(",")[2]}0`), ",", 3, t.h.split(",")[3]!.slice(1))),
      ],
      ["one hash missing", 40, (t) => void (t.h = t.h.split(",").slice(1).join(","))],
    ];
    // The same answers from node:crypto and from the native digest module (native-digests.ts).
    const native = nativeDigests();
    for (const [name, n, change] of changes) {
      const { bytes, layout } = chunk(n, change);
      expect([name, chunkHolds(hash, bytes, layout)]).toEqual([name, name === "intact"]);
      if (native) expect([name, "native", chunkHolds(hash, bytes, layout, native)]).toEqual([name, "native", name === "intact"]);
    }
  });

  it("answers on the thread as here, from a copy of the part of the row it is given", async () => {
    const thread = new HashThread();
    const jobs = [chunk(1), chunk(40, (t) => void (t.h = replaceAt(t.h, ",", 0, sha("x")))), chunk(512, () => {}, 300), chunk(9)];
    const answers = await Promise.all(jobs.map((j) => thread.check(j.bytes, j.layout.c - 5, j.layout.pEnd, j.layout)));
    expect(answers).toEqual([true, false, true, true]);
    expect(thread.answered).toBe(jobs.length);
    // The same with the native digest module, which the thread loads where the install built it.
    const natively = await Promise.all(jobs.map((j) => thread.check(j.bytes, j.layout.c - 5, j.layout.pEnd, j.layout, true)));
    expect(natively).toEqual([true, false, true, true]);
    expect([thread.answered, thread.answeredNative]).toEqual([2 * jobs.length, nativeDigests() ? jobs.length : 0]);
  });

  it("answers null for what a thread that failed had waiting, and checks every job after it here", async () => {
    // A thread that dies on its first job, as one that runs out of memory would.
    const thread = new HashThread(`require("node:worker_threads").parentPort.on("message", () => process.exit(3));`);
    expect(thread.takes()).toBe(true);
    const jobs = [chunk(30), chunk(30), chunk(30)];
    const answers = await Promise.all(jobs.map((j) => thread.check(j.bytes, j.layout.c, j.layout.pEnd, j.layout)));
    expect(answers).toEqual([null, null, null]);
    expect(thread.answered).toBe(0);
    expect(thread.takes()).toBe(false);
    const after = chunk(10, (t) => void (t.c = t.c.replace('"seq":1,', '"seq":2,')));
    expect(await thread.check(after.bytes, after.layout.c, after.layout.pEnd, after.layout)).toBe(false);
    expect(await thread.check(jobs[0]!.bytes, jobs[0]!.layout.c, jobs[0]!.layout.pEnd, jobs[0]!.layout)).toBe(true);
  });
});
