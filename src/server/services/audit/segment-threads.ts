import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { logger } from "../../log";
import type { ChunkWalk } from "./segment";
import type { SegmentAnswer, SegmentJob } from "./segment-thread";

const THREAD_FILE = "./segment-thread.ts";

/**
 * Two threads that each walk one half of a long chain on a session of their own
 * (segment-thread.ts), for verification (docs/performance.md, "Slow processes" and "Halves walked
 * on threads of their own"): a thread's heap
 * is its own, so the walk does not run on a process heap that V8 holds tight after a quiet spell,
 * where it collected the whole heap every few dozen milliseconds. Once started they run for the
 * life of the process, each with its session open (they keep no process up): a thread started
 * again after a quiet spell took longer to load its module, compile its code and connect than the
 * walk took. A thread that fails, or cannot start, answers null (its half is then walked on the
 * caller's session), and no thread is started again in this process, so the answer never depends
 * on them.
 */
export class SegmentThreads {
  /** `file`: the threads' module (tests give ones that die, or are not there). */
  constructor(private readonly file = new URL(THREAD_FILE, import.meta.url).href) {}

  private readonly workers: (Worker | null)[] = [null, null];
  private failed = false;
  /** Whether the module is there (read once). */
  private present: boolean | undefined;
  /** Each walk given to a thread and not answered yet. */
  private readonly waiting = new Map<number, (walk: ChunkWalk | null) => void>();
  private next = 0;
  /** Walks the threads answered (tests). */
  answered = 0;

  /**
   * Whether walks can be given to the threads: not after a failure, nor where the module is not
   * beside this one (a bundled copy of this code, as the console's routes are built), where the
   * caller then reads on its two pooled sessions as before.
   */
  available(): boolean {
    if (!this.failed && this.present === undefined) this.present = this.file.startsWith("file:") && fs.existsSync(fileURLToPath(this.file));
    return !this.failed && this.present === true;
  }

  /** Starts both threads if they are not running, so that they load while the caller gets ready. */
  warm(): void {
    this.start(0);
    this.start(1);
  }

  /** The walk of `job` on thread `slot` (0 or 1), or null when the thread failed or could not walk it. */
  walk(slot: 0 | 1, job: Omit<SegmentJob, "id">): Promise<ChunkWalk | null> {
    const worker = this.start(slot);
    if (!worker) return Promise.resolve(null);
    const id = this.next++;
    return new Promise((answer) => {
      this.waiting.set(id, answer);
      worker.postMessage({ ...job, id } satisfies SegmentJob);
    });
  }

  private start(slot: 0 | 1): Worker | null {
    if (this.failed) return null;
    const running = this.workers[slot];
    if (running) return running;
    // The service's TypeScript runs through tsx, whose loader a thread does not inherit on Node 20:
    // the thread registers it (tsx's tsImport) and then loads its module.
    const boot = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(this.file)}, ${JSON.stringify(this.file)}))`;
    let worker: Worker;
    try {
      worker = new Worker(boot, { eval: true });
    } catch (err) {
      this.fail(null, (err as Error).message);
      return null;
    }
    worker.on("message", (m: SegmentAnswer) => {
      const answer = this.waiting.get(m.id);
      if (!answer) return;
      this.waiting.delete(m.id);
      if (m.walk) this.answered++;
      else
        logger().warn(
          { reason: m.error },
          "audit verification: a segment thread could not walk its half; it is walked on the first session",
        );
      answer(m.walk ?? null);
    });
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
    for (const [id, answer] of this.waiting) {
      this.waiting.delete(id);
      answer(null);
    }
  }
}

export const segmentThreads = new SegmentThreads();
