import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { logger } from "../../log";
import { threadModule, tsWorker } from "../../platform/ts-thread";
import type { ChunkWalk } from "./segment";
import type { SegmentAnswer, SegmentJob, SegmentMessage } from "./segment-thread";

/**
 * How long a walk waits for its thread's transaction to join the snapshot once the thread has
 * loaded: connecting and beginning take milliseconds, so this is only reached behind a pooler
 * with no server connection free, and is long enough that a busy machine does not reach it.
 */
const START_WAIT_MS = 5_000;
/** The same for a thread still loading (tsx compiles its module first: about a second). */
const BOOT_WAIT_MS = 15_000;

type Waiting = { slot: 0 | 1; answer: (walk: ChunkWalk | null) => void; timer: NodeJS.Timeout | undefined; started?: boolean };

/**
 * Two threads that each walk one half of a long chain on a session of their own
 * (segment-thread.ts), for verification (docs/performance.md, "Slow processes" and "Halves walked
 * on threads of their own"): a thread's heap is its own, so the walk does not run on a process
 * heap that V8 holds tight after a quiet spell, where it collected the whole heap every few dozen
 * milliseconds. Once started they run for the life of the process, each with its session open
 * (they keep no process up): a thread started again after a quiet spell took longer to load its
 * module, compile its code and connect than the walk took. The caller never waits on them for
 * long: a thread busy with another verification's half, or whose transaction does not begin
 * within startWait, answers null at once, as does one that fails or cannot start (and then no
 * thread is started again in this process); the caller walks that half on its own session, so
 * the answer never depends on them.
 */
export class SegmentThreads {
  private readonly file: string;
  private readonly startWait: number;
  private readonly bootWait: number;

  /**
   * `file`: the threads' module (default: segment-thread.ts found by threadModule; tests give ones
   * that die, or are not there). `startWait`: how long a walk waits for its thread's transaction
   * to join the snapshot once the thread has loaded; `bootWait`: the same while it still loads.
   */
  constructor(options: { file?: string; startWait?: number; bootWait?: number } = {}) {
    this.file = options.file ?? threadModule(import.meta.url, "src/server/services/audit/segment-thread.ts");
    this.startWait = options.startWait ?? START_WAIT_MS;
    this.bootWait = options.bootWait ?? BOOT_WAIT_MS;
  }

  private readonly workers: (Worker | null)[] = [null, null];
  /** Whether each thread has loaded its module. */
  private readonly ready = [false, false];
  /** Jobs each thread holds (given and not ended there), answered here or not. */
  private readonly held = [0, 0];
  private failed = false;
  /** Whether the module is there (read once). */
  private present: boolean | undefined;
  /** Each walk given to a thread and not answered yet. */
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;
  /** Walks the threads answered (tests). */
  answered = 0;
  /** Walks not waited for: their thread was busy, or its transaction did not begin in time (tests). */
  gaveUp = 0;
  /** Jobs a thread ended without walking them, as the caller had stopped waiting (tests). */
  skipped = 0;

  /**
   * Whether walks can be given to the threads: not after a failure, nor where the module is not
   * there (a copy of this code bundled away from the service's sources), where the caller then
   * reads on its two pooled sessions as before.
   */
  available(): boolean {
    if (!this.failed && this.present === undefined) this.present = this.file.startsWith("file:") && fs.existsSync(fileURLToPath(this.file));
    return !this.failed && this.present === true;
  }

  /** Whether either thread holds a job (another verification's half, or one it was told to skip). */
  busy(): boolean {
    return this.held[0]! > 0 || this.held[1]! > 0;
  }

  /** Starts both threads if they are not running, so that they load while the caller gets ready. */
  warm(): void {
    this.start(0);
    this.start(1);
  }

  /**
   * The walk of `job` on thread `slot` (0 or 1), or null when the thread failed or could not walk
   * it, when it is busy with another job, or when its transaction has not joined the snapshot
   * within startWait of the thread having loaded (behind a pooler whose server connections are
   * all taken, BEGIN would wait for the pooler's own timeout): the caller then walks the half on
   * its own session at once, and the thread skips the job.
   */
  walk(slot: 0 | 1, job: Omit<SegmentJob, "id">): Promise<ChunkWalk | null> {
    const worker = this.start(slot);
    if (!worker) return Promise.resolve(null);
    if (this.held[slot]! > 0) {
      this.gaveUp++;
      return Promise.resolve(null);
    }
    const id = this.next++;
    return new Promise((answer) => {
      const waiting: Waiting = { slot, answer, timer: undefined };
      this.waiting.set(id, waiting);
      this.held[slot]!++;
      this.arm(id, waiting, this.ready[slot] ? this.startWait : this.bootWait);
      worker.postMessage({ ...job, id } satisfies SegmentMessage);
    });
  }

  /** Gives up on walk `id` after `ms`, unless its transaction has joined the snapshot by then. */
  private arm(id: number, waiting: Waiting, ms: number): void {
    clearTimeout(waiting.timer);
    waiting.timer = setTimeout(() => {
      if (this.waiting.get(id) !== waiting) return;
      this.waiting.delete(id);
      this.gaveUp++;
      this.workers[waiting.slot]?.postMessage({ cancel: id } satisfies SegmentMessage);
      logger().warn(
        { waitedMs: ms },
        "audit verification: a segment thread's transaction did not begin in time (all of a pooler's server connections taken?); its half is walked on the first session",
      );
      waiting.answer(null);
    }, ms);
    waiting.timer.unref();
  }

  private heard(slot: 0 | 1, m: SegmentAnswer): void {
    if ("ready" in m) {
      this.ready[slot] = true;
      // Walks given while the thread loaded now wait only startWait more.
      for (const [id, waiting] of this.waiting) if (waiting.slot === slot && !waiting.started) this.arm(id, waiting, this.startWait);
      return;
    }
    const waiting = this.waiting.get(m.id);
    if ("started" in m) {
      if (waiting) {
        waiting.started = true;
        clearTimeout(waiting.timer);
      }
      return;
    }
    this.held[slot] = Math.max(0, this.held[slot]! - 1);
    if ("skipped" in m) this.skipped++;
    if (!waiting) return;
    this.waiting.delete(m.id);
    clearTimeout(waiting.timer);
    const walk = "walk" in m ? m.walk : undefined;
    if (walk) this.answered++;
    else
      logger().warn(
        { reason: "error" in m ? m.error : "skipped" },
        "audit verification: a segment thread could not walk its half; it is walked on the first session",
      );
    waiting.answer(walk ?? null);
  }

  private start(slot: 0 | 1): Worker | null {
    if (this.failed) return null;
    const running = this.workers[slot];
    if (running) return running;
    let worker: Worker;
    try {
      worker = tsWorker(this.file);
    } catch (err) {
      this.fail(null, (err as Error).message);
      return null;
    }
    worker.on("message", (m: SegmentAnswer) => this.heard(slot, m));
    worker.on("error", (err) => this.fail(worker, err.message));
    worker.on("exit", (code) => this.fail(worker, `exit ${code}`));
    worker.unref();
    this.workers[slot] = worker;
    return worker;
  }

  /** A thread failed (or could not start): every walk waiting is answered null, and no thread is started again. */
  private fail(worker: Worker | null, why: string): void {
    // A thread already let go (after another's failure) is not a new failure.
    if (worker && !this.workers.includes(worker)) return;
    if (this.failed) return;
    this.failed = true;
    logger().warn({ reason: why }, "audit verification: a segment thread stopped; halves are walked on the first session");
    for (const [slot, w] of this.workers.entries()) {
      if (!w) continue;
      this.workers[slot] = null;
      void w.terminate();
    }
    for (const [id, waiting] of this.waiting) {
      this.waiting.delete(id);
      clearTimeout(waiting.timer);
      waiting.answer(null);
    }
  }
}

// One pair per process, kept on globalThis so that the service and Next's bundle of the console's
// routes share it (as they share the database connection, db/client.ts): two threads, two sessions.
const g = globalThis as unknown as { __biSegmentThreads?: SegmentThreads };
g.__biSegmentThreads ??= new SegmentThreads();
export const segmentThreads = g.__biSegmentThreads;
