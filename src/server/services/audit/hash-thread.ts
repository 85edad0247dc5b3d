import { hash } from "node:crypto";
import { Worker } from "node:worker_threads";
import { logger } from "../../log";

/**
 * Of the entries laid out by `ranges` in `bytes` (three numbers an entry: where its stored bytes
 * start, where they end, and where its stored hash starts, or -1 when that hash is not 64
 * characters long), the indexes of those whose bytes do not hash (SHA-256, lowercase hex) to their
 * stored hash. The hash thread runs this function from its source text, so it uses nothing but its
 * arguments (the hash function is one of them).
 */
export function hashMismatches(sha256: typeof hash, bytes: Uint8Array, ranges: Int32Array): number[] {
  const bad: number[] = [];
  for (let i = 0; i < ranges.length; i += 3) {
    const at = ranges[i + 2]!;
    if (at < 0) {
      bad.push(i / 3);
      continue;
    }
    const hex = sha256("sha256", bytes.subarray(ranges[i]!, ranges[i + 1]!), "hex");
    for (let k = 0; k < 64; k++) {
      if (bytes[at + k] !== hex.charCodeAt(k)) {
        bad.push(i / 3);
        break;
      }
    }
  }
  return bad;
}

/**
 * A thread's source: given the shared counter of jobs done (workerData), answers each job
 * ({ id, bytes, ranges }) with { id, bad } and counts it done at once, before its answer waits
 * for the caller's thread to take it.
 */
const SOURCE = `const { parentPort, workerData } = require("node:worker_threads");
const { hash } = require("node:crypto");
const hashMismatches = ${hashMismatches.toString()};
parentPort.on("message", (job) => {
  const bad = hashMismatches(hash, job.bytes, job.ranges);
  Atomics.add(workerData, 0, 1);
  parentPort.postMessage({ id: job.id, bad });
});`;

/** Jobs given to the thread and not yet hashed beyond which the caller hashes the next one itself (the thread is behind). */
const MAX_AHEAD = 16;
/** A thread with nothing to do for this long stops (the next verification starts another). */
const IDLE_MS = 30_000;

/** Shared buffers kept for jobs' copies (allocating shared memory costs far more than copying into it). */
const POOLED = MAX_AHEAD + 8;
const MIN_BUFFER = 512 * 1024;

type Waiting = { bytes: Uint8Array; ranges: Int32Array; answer(bad: number[]): void };

/**
 * One thread that hashes audit entries for verification (docs/performance.md, "Write path"), so
 * that the thread reading the chain only reads it: the two cores a verification has then share
 * the reading, the database's work and the hashing. A job's bytes are a copy in shared memory, so
 * a thread that fails or stops leaves nothing lost: its waiting jobs are hashed on the caller's
 * thread, as are jobs while the thread is MAX_AHEAD behind. The answer never depends on the thread.
 */
export class HashThread {
  /** `source`: the thread's code (tests give one that fails). */
  constructor(private readonly source = SOURCE) {}

  private worker: Worker | null = null;
  /** Set once a thread has failed: this process hashes on the caller's thread from then on. */
  private failed = false;
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;
  /** Jobs the thread has hashed (it counts them as it goes; its answers reach this thread later). */
  private done = new Int32Array(new SharedArrayBuffer(4));
  /** Jobs given to the current thread. */
  private given = 0;
  private idle: NodeJS.Timeout | undefined;
  /** Jobs the thread answered (tests). */
  answered = 0;

  /** Whether a job given now would go to the thread. */
  takes(): boolean {
    return !this.failed && this.given - Atomics.load(this.done, 0) < MAX_AHEAD && this.start() !== null;
  }

  /**
   * hashMismatches of `ranges` in a copy of `source` (from its start to `length`), on the thread
   * (takes() first: otherwise it is hashed here), and what `use` makes of the answer and the copy:
   * the copy is reused once `use` returns.
   */
  check<T>(source: Uint8Array, length: number, ranges: Int32Array, use: (bad: number[], bytes: Uint8Array) => T): Promise<T> {
    const worker = this.start();
    if (!worker) return Promise.resolve(use(hashMismatches(hash, source, ranges), source));
    clearTimeout(this.idle);
    const bytes = this.borrow(length);
    bytes.set(source.subarray(0, length));
    const id = this.next++;
    this.given++;
    return new Promise((resolve) => {
      this.waiting.set(id, {
        bytes,
        ranges,
        answer: (bad) => {
          const result = use(bad, bytes);
          this.giveBack(bytes);
          resolve(result);
        },
      });
      worker.postMessage({ id, bytes, ranges });
    });
  }

  private readonly pool: SharedArrayBuffer[] = [];

  /** A view of `length` bytes of shared memory, pooled when one is free and large enough. */
  private borrow(length: number): Uint8Array {
    const i = this.pool.findIndex((b) => b.byteLength >= length);
    const buffer = i >= 0 ? this.pool.splice(i, 1)[0]! : new SharedArrayBuffer(Math.max(length, MIN_BUFFER));
    return new Uint8Array(buffer, 0, length);
  }

  private giveBack(bytes: Uint8Array): void {
    if (this.pool.length < POOLED) this.pool.push(bytes.buffer as SharedArrayBuffer);
  }

  private start(): Worker | null {
    if (this.failed) return null;
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      this.done = new Int32Array(new SharedArrayBuffer(4));
      this.given = 0;
      worker = new Worker(this.source, { eval: true, workerData: this.done });
    } catch (err) {
      this.fail(null, (err as Error).message);
      return null;
    }
    worker.on("message", (m: { id: number; bad: number[] }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      this.answered++;
      w.answer(m.bad);
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

  /** A thread failed (or could not start): what it had waiting is hashed here, and no thread is started again. */
  private fail(worker: Worker | null, why: string): void {
    // A thread stopped for idleness is no longer this.worker; its exit is not a failure.
    if (worker !== this.worker || this.failed) return;
    this.failed = true;
    this.worker = null;
    logger().warn({ reason: why }, "audit verification: the hashing thread stopped; entries are hashed on the reading thread");
    for (const [id, w] of this.waiting) {
      this.waiting.delete(id);
      w.answer(hashMismatches(hash, w.bytes, w.ranges));
    }
    if (worker) void worker.terminate();
  }
}

export const hashThread = new HashThread();
