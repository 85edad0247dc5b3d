import { hash } from "node:crypto";
import { Worker } from "node:worker_threads";
import { logger } from "../../log";

/**
 * Where a chunk's three values lie in its bytes, each from its first byte to the byte after its
 * last: `entries` entries' stored bytes joined by newlines (c), their stored hashes joined by commas
 * (h), and their prevHashes joined by commas (p).
 */
export type ChunkLayout = { entries: number; c: number; cEnd: number; h: number; hEnd: number; p: number; pEnd: number };

/**
 * Whether a chunk's entries hold (chunkSql in verify.ts): the newlines split `c` into exactly
 * `entries` pieces, each piece's SHA-256 (lowercase hex) is the stored hash at its place in `h`, and
 * `p` is a first prevHash without a comma followed by every stored hash of `h` but the last. The
 * values written by the database contain neither the separators they are joined with nor, but for
 * the first prevHash, anything but hex digests, so when these hold each entry's bytes, hash and
 * prevHash are exactly the pieces: a value holding a separator adds one, which no comparison
 * survives. `scratch` is where the digests are written, commas between them (it is allocated when
 * too short). The hash thread runs this function from its source text, so it uses nothing but its
 * arguments (the hash function is one of them).
 */
export function chunkHolds(sha256: typeof hash, bytes: Buffer, at: ChunkLayout, scratch: Buffer): boolean {
  const n = at.entries;
  if (n < 1 || at.hEnd - at.h !== 65 * n - 1 || at.pEnd - at.p !== 65 * n - 1) return false;
  const digests = scratch.length >= 65 * n ? scratch : Buffer.alloc(65 * n);
  // Hashed through a plain view: a Buffer's subarray costs more to make.
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  let from = at.c;
  for (let k = 0; k < n; k++) {
    const newline = bytes.indexOf(10, from);
    const end = newline >= 0 && newline < at.cEnd ? newline : at.cEnd;
    if ((end === at.cEnd) !== (k === n - 1)) return false;
    digests.write(sha256("sha256", view.subarray(from, end), "hex"), 65 * k, "latin1");
    if (k < n - 1) digests[65 * k + 64] = 44;
    from = end + 1;
  }
  if (digests.compare(bytes, at.h, at.hEnd, 0, 65 * n - 1) !== 0) return false;
  const comma = bytes.indexOf(44, at.p);
  if (comma >= 0 && comma < at.p + 64) return false;
  return n === 1 || (bytes[at.p + 64] === 44 && bytes.compare(bytes, at.h, at.hEnd - 65, at.p + 65, at.pEnd) === 0);
}

/** Room for the digests of a chunk of 512 entries (chunkHolds allocates more for a longer one). */
const SCRATCH = 65 * 512;
/** chunkHolds's scratch on this thread. */
export const scratchHere = Buffer.alloc(SCRATCH);

/**
 * A thread's source: given the shared counter of jobs done (workerData), answers each job
 * ({ id, bytes, length, layout }: the chunk in the first `length` bytes of the ArrayBuffer `bytes`,
 * handed over) with { id, holds, bytes }, handing the buffer back, and counts it done at once,
 * before its answer waits for the caller's thread to take it.
 */
const SOURCE = `const { parentPort, workerData } = require("node:worker_threads");
const { hash } = require("node:crypto");
const chunkHolds = ${chunkHolds.toString()};
const scratch = Buffer.alloc(${SCRATCH});
parentPort.on("message", (job) => {
  const holds = chunkHolds(hash, Buffer.from(job.bytes, 0, job.length), job.layout, scratch);
  Atomics.add(workerData, 0, 1);
  parentPort.postMessage({ id: job.id, holds, bytes: job.bytes }, [job.bytes]);
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
  /** Jobs the thread answered (tests). */
  answered = 0;

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
   * otherwise it is checked here), which gets a copy of source[from, to). Null when the thread
   * failed before it answered.
   */
  check(source: Buffer, from: number, to: number, layout: ChunkLayout): Promise<boolean | null> {
    const worker = this.start();
    if (!worker) return Promise.resolve(chunkHolds(hash, source, layout, scratchHere));
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
      worker.postMessage({ id, bytes, length, layout: shifted }, [bytes]);
    });
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
    worker.on("message", (m: { id: number; holds: boolean; bytes: ArrayBuffer }) => {
      const answer = this.waiting.get(m.id);
      if (!answer) return;
      this.waiting.delete(m.id);
      this.answered++;
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
