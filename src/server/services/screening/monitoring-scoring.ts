import os from "node:os";
import type { Worker } from "node:worker_threads";
import { env } from "@/env";
import { logger } from "../../log";
import { threadModule, tsWorker } from "../../platform/ts-thread";
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
/** A page's parts sent to the threads: this thread's share of it, and each part's answer to come. */
type Started = {
  share: number;
  ownRows: number;
  sentAt: number;
  sent: { id: number; part: readonly PersonRow[]; answer: Promise<ChangeFound[] | null> }[];
};

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
  /** Pages whose threads' parts went out when the page was read (ahead). */
  private readonly started = new WeakMap<readonly PersonRow[], Started>();
  /** The fraction of a page this thread scores itself (null: an even split until a page is timed). */
  private ownShare: number | null = null;
  /** Parts a thread answered (the rest were scored on this thread). */
  answeredByThreads = 0;

  private constructor(
    private readonly index: ChangedEntryIndex,
    private readonly list: string,
  ) {}

  /**
   * Threads for `index` (count: BI_RESCREEN_THREADS, else one when the machine has a second
   * core, unless given). Each builds its own index of the change from its entries.
   */
  static start(index: ChangedEntryIndex, list: string, count = defaultThreads()): ScoringThreads {
    const pool = new ScoringThreads(index, list);
    for (let i = 0; i < count; i++) pool.spawn();
    return pool;
  }

  private spawn(): void {
    let worker: Worker;
    try {
      worker = tsWorker(threadModule(import.meta.url, THREAD_FILE));
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
      for (const [id, w] of this.waiting) {
        if (this.owner.get(id) !== thread) continue;
        this.waiting.delete(id);
        this.owner.delete(id);
        w.resolve(null);
      }
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

  /**
   * Sends the threads their parts of a page as soon as it is read (the run calls this when the
   * page it reads ahead arrives), so they score while this thread is still writing the page before.
   */
  ahead(rows: readonly PersonRow[]): void {
    if (this.started.has(rows)) return;
    try {
      const handle = this.send(rows);
      if (handle) this.started.set(rows, handle);
    } catch (err) {
      // Scored in full when the run gets to it.
      logger().warn({ err: { message: (err as Error).message } }, "screening re-screen: a page could not be sent ahead");
    }
  }

  /** The people of `rows` with matches, in page order (scoreAgainstChange's answer, in parts). */
  async score(rows: readonly PersonRow[]): Promise<ChangeFound[]> {
    const handle = this.started.get(rows) ?? this.send(rows);
    this.started.delete(rows);
    if (!handle) return scoreAgainstChange(this.index, this.list, rows);
    const started = performance.now();
    const own = scoreAgainstChange(this.index, this.list, rows.slice(rows.length - handle.ownRows));
    const ownMs = performance.now() - started;
    const found: ChangeFound[] = [];
    let threadsPace = 0;
    let paced = true;
    for (const { id, part, answer } of handle.sent) {
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
    if (paced && threadsPace > 0) {
      // The share with which the threads' parts, sent `lead` ms before this thread began its own,
      // would have ended with it: (n - own) / threadsPace = lead + own / ownPace.
      const lead = started - handle.sentAt;
      const ownPace = handle.ownRows / Math.max(0.1, ownMs);
      const n = rows.length;
      const balanced = (n / threadsPace - lead) / (1 / ownPace + 1 / threadsPace) / n;
      this.ownShare = Math.min(0.9, Math.max(0.05, 0.7 * handle.share + 0.3 * balanced));
    }
    return found;
  }

  /** Posts the threads' parts of `rows`; null when there is no thread alive or too few rows to share. */
  private send(rows: readonly PersonRow[]): Started | null {
    const alive = this.threads.filter((t) => t.alive);
    if (alive.length === 0 || rows.length < alive.length + 1) return null;
    const share = this.ownShare ?? 1 / (alive.length + 1);
    const ownRows = Math.max(1, Math.round(rows.length * share));
    const size = Math.ceil((rows.length - ownRows) / alive.length);
    const sent = alive.map((thread, i) => {
      const part = rows.slice(i * size, Math.min((i + 1) * size, rows.length - ownRows));
      const id = this.next++;
      const answer = new Promise<ChangeFound[] | null>((resolve) => this.waiting.set(id, { resolve }));
      this.owner.set(id, thread);
      thread.worker.postMessage({ kind: "page", id, rows: part } satisfies ToThread);
      return { id, part, answer };
    });
    return { share, ownRows, sent, sentAt: performance.now() };
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

const THREAD_FILE = "src/server/services/screening/monitoring-scoring-thread.ts";

/**
 * One thread when a second core is there: the cores a process may use are not its CPU quota (a
 * container's limit), and each thread holds a copy of the change's index, so more are asked for.
 */
export function defaultThreads(): number {
  return env().BI_RESCREEN_THREADS ?? Math.min(1, os.availableParallelism() - 1);
}

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
