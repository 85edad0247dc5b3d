import os from "node:os";
import { Worker } from "node:worker_threads";
import { logger } from "../../log";
import { type ChangedEntry, ChangedEntryIndex } from "./monitoring-changes";
import { matchChange } from "./monitoring-screen";
import { openSubject, type SubjectQuery } from "./monitoring-subjects";
import { nameTokens } from "./normalize";
import type { ScreenMatch } from "./screen";

/** A person of a re-screen's page: their sealed identity and sealed data key. */
export type PersonRow = { personId: string; querySealed: string; keySealed: string | null };
/** A person of a page with matches among the change (what a scoring thread sends back). */
export type ChangeFound = { personId: string; query: SubjectQuery; tokens: string[]; matches: ScreenMatch[] };

/**
 * Opens each person's identity and matches it against the change held in memory; returns the
 * people with a match at or above the threshold, in page order. Pure CPU: the same on this thread
 * and on a scoring thread.
 */
export function scoreAgainstChange(index: ChangedEntryIndex, list: string, rows: readonly PersonRow[]): ChangeFound[] {
  const found: ChangeFound[] = [];
  for (const row of rows) {
    const query = openSubject(row.querySealed, row.keySealed);
    if (!query) continue;
    const tokens = nameTokens(query.name);
    const matches = matchChange(index, list, query, tokens);
    if (matches.length > 0) found.push({ personId: row.personId, query, tokens, matches });
  }
  return found;
}

type Thread = { worker: Worker; alive: boolean; down(why: string): void };

/** Messages to a scoring thread: the change once, then pages; it answers each page by its number. */
export type ToThread = { kind: "change"; entries: readonly ChangedEntry[]; list: string } | { kind: "page"; id: number; rows: PersonRow[] };
export type FromThread = { id: number; found?: ChangeFound[]; ms?: number; error?: string };

/**
 * Scoring threads for one run's change (docs/screening.md, "Ongoing screening"): a page is cut in
 * as many parts as there are threads plus this one, each thread scores a part while this thread
 * scores the last, and the parts' matches are put back in page order. A thread that cannot start
 * or fails leaves its part to this thread, and no further part is sent to it: the answer never
 * depends on the threads.
 */
export class ScoringThreads {
  private readonly threads: Thread[] = [];
  private readonly waiting = new Map<number, { resolve(found: ChangeFound[] | null): void }>();
  /** The thread each waiting part was sent to. */
  private readonly owner = new Map<number, Thread>();
  private next = 0;
  /** How long each answered part kept its thread busy, for the pace of the threads. */
  private readonly busyMs = new Map<number, number>();
  /** When the last page's scoring ended here: until the next page, this thread reads and writes. */
  private lastEnd: number | null = null;
  /** The fraction of a page this thread scores itself (null: an even split until a page is timed). */
  private ownShare: number | null = null;
  /** Parts a thread answered (the rest were scored on this thread). */
  answeredByThreads = 0;

  private constructor(
    private readonly index: ChangedEntryIndex,
    private readonly list: string,
  ) {}

  /**
   * Threads for `index` (count: the cores beyond this one, at most 3, unless given); none on a
   * single core. Each builds its own index of the change from its entries.
   */
  static start(index: ChangedEntryIndex, list: string, count = Math.min(3, os.availableParallelism() - 1)): ScoringThreads {
    const pool = new ScoringThreads(index, list);
    for (let i = 0; i < count; i++) pool.spawn();
    return pool;
  }

  private spawn(): void {
    // Resolved when the pool starts, not by the bundler: the Next build that bundles this module never runs a re-screen.
    const file = new URL(THREAD_FILE, import.meta.url).href;
    // The service's TypeScript runs through tsx, whose loader a thread does not inherit on Node 20:
    // the thread registers it (tsx's tsImport) and then loads its module.
    const boot = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(file)}))`;
    let worker: Worker;
    try {
      worker = new Worker(boot, { eval: true });
    } catch (err) {
      logger().warn({ err: { message: (err as Error).message } }, "screening re-screen: a scoring thread did not start");
      return;
    }
    const thread: Thread = { worker, alive: true, down: (why) => down(why) };
    const down = (why: string) => {
      if (!thread.alive) return;
      thread.alive = false;
      logger().warn({ reason: why }, "screening re-screen: a scoring thread stopped; its parts are scored on the main thread");
      // Parts waiting on it are scored here instead (their callers see null).
      for (const [id, w] of this.waiting) if (this.owner.get(id) === thread) w.resolve(null);
    };
    worker.on("message", (m: FromThread) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      this.owner.delete(m.id);
      if (!m.error) {
        this.answeredByThreads++;
        this.busyMs.set(m.id, m.ms ?? 0);
      }
      w.resolve(m.error ? null : (m.found ?? []));
      if (m.error) down(m.error);
    });
    worker.on("error", (err) => down(err.message));
    worker.on("exit", (code) => down(`exit ${code}`));
    worker.unref();
    worker.postMessage({ kind: "change", entries: this.index.entries, list: this.list } satisfies ToThread);
    this.threads.push(thread);
  }

  /** The people of `rows` with matches, in page order (scoreAgainstChange's answer, in parts). */
  async score(rows: readonly PersonRow[]): Promise<ChangeFound[]> {
    const alive = this.threads.filter((t) => t.alive);
    if (alive.length === 0 || rows.length < alive.length + 1) return scoreAgainstChange(this.index, this.list, rows);
    // This thread's part: its share of the page, as the last pages found the threads' pace and
    // this thread's, which between pages also reads and writes while the threads wait.
    const share = this.ownShare ?? 1 / (alive.length + 1);
    const ownRows = Math.max(1, Math.round(rows.length * share));
    const size = Math.ceil((rows.length - ownRows) / alive.length);
    const started = performance.now();
    const between = this.lastEnd === null ? 0 : started - this.lastEnd;
    const sent = alive.map((thread, i) => {
      const part = rows.slice(i * size, Math.min((i + 1) * size, rows.length - ownRows));
      const id = this.next++;
      const answer = new Promise<ChangeFound[] | null>((resolve) => this.waiting.set(id, { resolve }));
      this.owner.set(id, thread);
      thread.worker.postMessage({ kind: "page", id, rows: part } satisfies ToThread);
      return { id, part, answer };
    });
    const own = scoreAgainstChange(this.index, this.list, rows.slice(rows.length - ownRows));
    const ownMs = performance.now() - started;
    const found: ChangeFound[] = [];
    let threadsPace = 0;
    let paced = true;
    for (const { id, part, answer } of sent) {
      const answered = await answer;
      const busy = this.busyMs.get(id);
      this.busyMs.delete(id);
      if (answered === null || busy === undefined) {
        paced = false;
        found.push(...scoreAgainstChange(this.index, this.list, part));
      } else {
        threadsPace += part.length / Math.max(0.1, busy);
        found.push(...answered);
      }
    }
    found.push(...own);
    this.lastEnd = performance.now();
    if (paced && threadsPace > 0) {
      // The share with which the threads' parts would have taken as long as this thread's part
      // plus its work between pages: (n - own) / threadsPace = between + own / ownPace.
      const ownPace = ownRows / Math.max(0.1, ownMs);
      const n = rows.length;
      const balanced = (n / threadsPace - between) / (1 / ownPace + 1 / threadsPace) / n;
      this.ownShare = Math.min(0.9, Math.max(0.05, 0.7 * share + 0.3 * balanced));
    }
    return found;
  }

  /** Stops one thread as if it had failed (tests): what it would score is scored on this thread. */
  async stopOne(): Promise<void> {
    const thread = this.threads.find((t) => t.alive);
    if (!thread) return;
    await thread.worker.terminate();
    thread.down("stopped");
  }

  async close(): Promise<void> {
    for (const [, w] of this.waiting) w.resolve(null);
    this.waiting.clear();
    await Promise.all(
      this.threads.map((t) => {
        t.alive = false;
        return t.worker.terminate();
      }),
    );
  }
}

const THREAD_FILE = "./monitoring-scoring-thread.ts";

/** A scoring thread's loop (monitoring-scoring-thread.ts): the change's index, then one answer per page. */
export function serveScoring(port: { on(event: "message", f: (m: ToThread) => void): void; postMessage(m: FromThread): void }): void {
  let index: ChangedEntryIndex | null = null;
  let list = "";
  port.on("message", (m) => {
    if (m.kind === "change") {
      index = new ChangedEntryIndex(m.entries);
      list = m.list;
      return;
    }
    try {
      if (!index) throw new Error("no change to score against");
      const started = performance.now();
      const found = scoreAgainstChange(index, list, m.rows);
      port.postMessage({ id: m.id, found, ms: performance.now() - started });
    } catch (err) {
      port.postMessage({ id: m.id, error: (err as Error).message });
    }
  });
}
