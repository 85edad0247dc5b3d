import { hash } from "node:crypto";
import { Worker } from "node:worker_threads";
import { logger } from "../../log";
import { type ChunkLayout, chunkHolds } from "./chunk-holds";
import { nativeDigests, nativeDigestsFile } from "./native-digests";

// Where the tests and callers have always found them.
export { type ChunkLayout, chunkHolds };

/**
 * A thread's source: given the shared counter of jobs done and the native digest module's file
 * (workerData: { done, native }, native-digests.ts), answers each job ({ id, bytes, length, layout,
 * native }: the chunk in the first `length` bytes of the ArrayBuffer `bytes`, handed over, and
 * whether to hash with the native module, loaded at its first use; node:crypto where it does not
 * load) with { id, holds, bytes, native }, handing the buffer back, and counts it done at once, before its
 * answer waits for the caller's thread to take it.
 */
const SOURCE = `const { parentPort, workerData } = require("node:worker_threads");
const { hash } = require("node:crypto");
const chunkHolds = ${chunkHolds.toString()};
let native;
function nativeDigests() {
  if (native !== undefined) return native;
  native = null;
  try {
    const module = { exports: {} };
    if (workerData.native) process.dlopen(module, workerData.native);
    if (typeof module.exports.holds === "function") native = module.exports;
  } catch {}
  return native;
}
parentPort.on("message", (job) => {
  const digests = job.native ? nativeDigests() : null;
  const holds = chunkHolds(hash, Buffer.from(job.bytes, 0, job.length), job.layout, digests);
  Atomics.add(workerData.done, 0, 1);
  parentPort.postMessage({ id: job.id, holds, bytes: job.bytes, native: digests !== null }, [job.bytes]);
});`;

/** Jobs given to the thread and not yet checked beyond which the caller checks the next one itself (the thread is behind). */
const MAX_AHEAD = 16;
/** A thread with nothing to do for this long stops (the next verification starts another). */
const IDLE_MS = 30_000;

/** Buffers kept for jobs' copies, as they come back from the thread (fewer allocations). */
const POOLED = MAX_AHEAD + 8;
const MIN_BUFFER = 512 * 1024;

/**
 * One thread that checks chunks of audit entries for verification (docs/performance.md, "Chunks
 * checked whole, a hashing thread, no JIT" and "Joined texts, buffers handed over"), so that the thread reading the chain mostly reads
 * it: the two cores a verification has then share the reading, the database's work and the
 * hashing. A job's bytes are copied into a buffer that is handed to the thread and back (a copy
 * into shared memory costs several times as much). The caller checks a chunk itself while the
 * thread is MAX_AHEAD behind. A thread that fails answers its waiting jobs with null (not
 * checked): the caller then reads those chunks again, so the answer never depends on the thread.
 */
export class HashThread {
  /** `source`: the thread's code (tests give one that fails). */
  constructor(private readonly source = SOURCE) {}

  private worker: Worker | null = null;
  /** Set once a thread has failed: this process checks on the caller's thread from then on. */
  private failed = false;
  private readonly waiting = new Map<number, (holds: boolean | null) => void>();
  private next = 0;
  /** Jobs the thread has checked (it counts them as it goes; its answers reach this thread later). */
  private done = new Int32Array(new SharedArrayBuffer(4));
  /** Jobs given to the current thread. */
  private given = 0;
  private idle: NodeJS.Timeout | undefined;
  private readonly pool: ArrayBuffer[] = [];
  /** Jobs the thread answered (tests), and of them those it hashed with the native digest module. */
  answered = 0;
  answeredNative = 0;

  /** Starts the thread if none runs, so that it is ready when the first job comes. */
  warm(): void {
    this.start();
  }

  /** Whether a job given now would go to the thread. */
  takes(): boolean {
    return !this.failed && this.given - Atomics.load(this.done, 0) < MAX_AHEAD && this.start() !== null;
  }

  /**
   * chunkHolds of the chunk laid out by `layout` in `source`, on the thread (takes() first:
   * otherwise it is checked here), which gets a copy of source[from, to); hashed with the native
   * digest module when `native` and it loads. Null when the thread failed before it answered.
   */
  check(source: Buffer, from: number, to: number, layout: ChunkLayout, native = false): Promise<boolean | null> {
    const worker = this.start();
    if (!worker) return Promise.resolve(chunkHolds(hash, source, layout, native ? nativeDigests() : null));
    clearTimeout(this.idle);
    const length = to - from;
    const i = this.pool.findIndex((b) => b.byteLength >= length);
    const bytes = i >= 0 ? this.pool.splice(i, 1)[0]! : new ArrayBuffer(Math.max(length, MIN_BUFFER));
    source.copy(Buffer.from(bytes, 0, length), 0, from, to);
    const shifted: ChunkLayout = {
      entries: layout.entries,
      c: layout.c - from,
      cEnd: layout.cEnd - from,
      h: layout.h - from,
      hEnd: layout.hEnd - from,
      p: layout.p - from,
      pEnd: layout.pEnd - from,
    };
    const id = this.next++;
    this.given++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ id, bytes, length, layout: shifted, native }, [bytes]);
    });
  }

  private start(): Worker | null {
    if (this.failed) return null;
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      this.done = new Int32Array(new SharedArrayBuffer(4));
      this.given = 0;
      worker = new Worker(this.source, { eval: true, workerData: { done: this.done, native: nativeDigestsFile() } });
    } catch (err) {
      this.fail(null, (err as Error).message);
      return null;
    }
    worker.on("message", (m: { id: number; holds: boolean; bytes: ArrayBuffer; native?: boolean }) => {
      const answer = this.waiting.get(m.id);
      if (!answer) return;
      this.waiting.delete(m.id);
      this.answered++;
      if (m.native) this.answeredNative++;
      if (this.pool.length < POOLED) this.pool.push(m.bytes);
      answer(m.holds === true);
      if (this.waiting.size === 0) this.rest();
    });
    worker.on("error", (err) => this.fail(worker, err.message));
    worker.on("exit", (code) => this.fail(worker, `exit ${code}`));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Stops the thread once it has been idle IDLE_MS. */
  private rest(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      const worker = this.worker;
      if (!worker || this.waiting.size > 0) return;
      this.worker = null;
      this.pool.length = 0;
      void worker.terminate();
    }, IDLE_MS);
    this.idle.unref();
  }

  /** A thread failed (or could not start): what it had waiting is answered unchecked, and no thread is started again. */
  private fail(worker: Worker | null, why: string): void {
    // A thread stopped for idleness is no longer this.worker; its exit is not a failure.
    if (worker !== this.worker || this.failed) return;
    this.failed = true;
    this.worker = null;
    logger().warn({ reason: why }, "audit verification: the hashing thread stopped; chunks are checked on the reading thread");
    for (const [id, answer] of this.waiting) {
      this.waiting.delete(id);
      answer(null);
    }
    if (worker) void worker.terminate();
  }
}

export const hashThread = new HashThread();
