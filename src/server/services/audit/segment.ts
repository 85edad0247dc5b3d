import { hash } from "node:crypto";
import type pg from "pg";
import { chunkHolds } from "./chunk-holds";
import type { HashThread } from "./hash-thread";
import type { NativeDigests } from "./native-digests";

// The chunked read of an organization's audit entries (docs/performance.md, "Joined texts,
// buffers handed over"), apart from verify.ts so that a thread can load it without the database
// client: verify.ts walks a range here, on its own session or on a segment thread
// (segment-thread.ts), and reads again what does not hold.

/** A walk's state before an entry: the seq it expects, the entries walked, and the hash the entry must link to. */
export type WalkState = { started: boolean; expectedSeq: number; count: number; prevHash: string };

/**
 * What a walk of from <= seq < to found: its first entry's seq and prevHash (checked against the
 * range before by join), the entries walked, the seq after them and the last stored hash ("" when
 * there were none), and, in seq order, the chunks that did not hold or were not checked (the hash
 * thread failed), each with the walk's state before it, to be read again entry by entry.
 */
export type ChunkWalk = {
  first?: { seq: number; prevHash: string };
  count: number;
  expectedSeq: number;
  prevHash: string;
  unsure: { from: number; to: number; before: WalkState }[];
  /** Set when the native digest module hashed what was hashed here (native-digests.ts). */
  native?: true;
};

/** Entries per row of the COPY (one protocol message each). */
export const CHUNK = 512;

/**
 * The chunks of from <= seq < to, CHUNK entries each, one row per chunk in seq order (aggregated in
 * the (orgId, seq) index's order): the chunk's first seq `g`; the first, count and last of its seqs;
 * its entries' stored bytes joined by newlines, their stored hashes joined by commas and their
 * prevHashes joined by commas (chunkHolds checks what they hold). Each value is one text the
 * database copies as it goes: no array to build and send element by element, and nothing compared
 * there. Functions are named with their schema, so that no function a database role creates can
 * stand in for them.
 */
const chunkSql = (org: string, from: number, to: number) =>
  `COPY (SELECT g, z.s, z.n, z.m, z.c, z.h, z.p
   FROM pg_catalog.generate_series(${int(from)}, ${int(to - 1)}, ${CHUNK}) AS g, LATERAL (
     SELECT pg_catalog.min(seq) AS s, pg_catalog.count(*)::int AS n, pg_catalog.max(seq) AS m,
       pg_catalog.string_agg(canonical, E'\\n') AS c, pg_catalog.string_agg(hash, ',') AS h,
       pg_catalog.string_agg("prevHash", ',') AS p FROM (
       SELECT seq, canonical, hash, "prevHash" FROM audit_entries
       WHERE "orgId" = ${org}::uuid AND seq >= g AND seq < least(g + ${CHUNK}, ${int(to)}) ORDER BY seq) x) z) TO STDOUT (FORMAT binary)`;

/**
 * Walks the entries with from <= seq < to. The database reads each entry's stored bytes, hash and
 * prevHash in seq order from the (orgId, seq) index and sends them as one binary COPY (chunkSql);
 * the bytes are hashed as PostgreSQL sent them, with no decoding into JavaScript values, on the
 * hash thread when given one (`thread`, hash-thread.ts), the rest here. A chunk holds when its
 * seqs follow each other and the one before's, its first prevHash is the walk's last hash, and
 * chunkHolds finds each entry's bytes hashing to its stored hash and each stored hash but the
 * last equal to the next entry's prevHash: every entry then hashes to its stored hash and links
 * to the one before. The walk goes on past a chunk that does not hold; the caller reads such
 * chunks again (verify.ts, readEntries).
 */
export async function walkChunks(
  client: pg.ClientBase,
  orgId: string,
  from: number,
  to: number,
  options: { abort?: { stop: boolean }; thread: HashThread | null; native?: NativeDigests | null },
): Promise<ChunkWalk> {
  const { abort } = options;
  const state: WalkState = { started: false, expectedSeq: from, count: 0, prevHash: "" };
  let first: { seq: number; prevHash: string } | undefined;
  /** Each chunk's range and the walk's state before it, and whether it holds (a promise while its hashes are on the thread). */
  const chunks: { from: number; to: number; before: WalkState; holds: boolean | Promise<boolean | null> }[] = [];
  /** The walk's last stored hash (state.prevHash is made from it only per chunk). */
  const last = Buffer.alloc(64);
  const copy = new CopyOut(chunkSql(client.escapeLiteral(orgId), from, to), 7, (buf, at) => {
    // Seven fields, each its length and then its bytes: g, s, n, m (int4; NULL but g and n for an
    // empty chunk), then the texts c, h and p.
    if (abort?.stop || buf.readInt32BE(at + 8) < 0) return;
    const g = buf.readInt32BE(at + 4);
    const s = buf.readInt32BE(at + 12);
    const n = buf.readInt32BE(at + 20);
    const m = buf.readInt32BE(at + 28);
    if (buf.readInt32BE(at + 16) !== 4 || n < 1) throw new Error("malformed chunk of audit entries");
    const field = (start: number) => {
      const length = buf.readInt32BE(start);
      if (length < 0) throw new Error("NULL in a chunk of audit entries");
      return start + 4 + length;
    };
    const cEnd = field(at + 32);
    const hEnd = field(cEnd);
    const pEnd = field(hEnd);
    const layout = { entries: n, c: at + 36, cEnd, h: cEnd + 4, hEnd, p: hEnd + 4, pEnd };
    const before: WalkState = { ...state, prevHash: state.started ? last.toString("latin1") : state.prevHash };
    if (!state.started) {
      // The first prevHash: up to the first comma (chunkHolds checks that there is one after 64 characters).
      const comma = buf.indexOf(44, layout.p);
      first = { seq: s, prevHash: buf.toString("utf8", layout.p, comma >= 0 && comma < pEnd ? comma : pEnd) };
      before.expectedSeq = s;
      before.prevHash = first.prevHash;
    }
    const holds =
      m - s + 1 === n &&
      (!state.started || (s === state.expectedSeq && pEnd - layout.p >= 64 && buf.compare(last, 0, 64, layout.p, layout.p + 64) === 0));
    // A chunk that does not hold is read again entry by entry: its hashes need not be taken here.
    const hashed = !holds
      ? false
      : options.thread?.takes()
        ? options.thread.check(buf, layout.c, pEnd, layout, options.native != null)
        : chunkHolds(hash, buf, layout, options.native);
    chunks.push({ from: g, to: Math.min(g + CHUNK, to), before, holds: hashed });
    // The walk goes on from the chunk's last entry whether or not it holds: a chunk that does not is read again before anything after it counts.
    state.started = true;
    state.expectedSeq = m + 1;
    state.count += n;
    // The last stored hash (the row's bytes are not kept past this call).
    if (hEnd - layout.h >= 64) buf.copy(last, 0, hEnd - 64, hEnd);
    else last.fill(0);
  });
  await client.query(copy);
  await copy.done;
  const unsure: ChunkWalk["unsure"] = [];
  for (const chunk of chunks) if (!(await chunk.holds)) unsure.push({ from: chunk.from, to: chunk.to, before: chunk.before });
  const walk: ChunkWalk = {
    first,
    count: state.count,
    expectedSeq: state.expectedSeq,
    prevHash: state.started ? last.toString("latin1") : "",
    unsure,
  };
  if (options.native) walk.native = true;
  return walk;
}

/** A bound written into COPY's text (COPY takes no parameters). */
export function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

const COPY_SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/**
 * `COPY … TO STDOUT (FORMAT binary)` of rows of `fields` columns as a pg query: hands each row to
 * `onRow` as buf and the offset of its first field's length when its message arrives (valid only
 * during the call). pg runs any object with `submit` as a query and passes it the
 * protocol messages, as pg-cursor does.
 */
export class CopyOut implements pg.Submittable {
  readonly done: Promise<void>;
  private settle!: (err?: Error) => void;
  private failed?: Error;

  constructor(
    private readonly text: string,
    private readonly fields: number,
    private readonly onRow: (buf: Buffer, at: number) => void,
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = (err) => (err ? reject(err) : resolve())));
  }

  submit(connection: pg.Connection): void {
    (connection as unknown as { query(text: string): void }).query(this.text);
  }

  handleCopyData(msg: { chunk: Buffer }): void {
    if (this.failed) return;
    try {
      const buf = msg.chunk;
      let at = 0;
      if (buf.length >= 19 && buf.subarray(0, 11).equals(COPY_SIGNATURE)) at = 19 + buf.readInt32BE(15);
      while (at < buf.length) {
        const count = buf.readInt16BE(at);
        at += 2;
        if (count < 0) break; // the trailer
        if (count !== this.fields) throw new Error("malformed COPY row of audit entries");
        const row = at;
        for (let i = 0; i < count; i++) {
          const len = buf.readInt32BE(at);
          at += 4 + Math.max(len, 0);
        }
        if (at > buf.length) throw new Error("malformed COPY row of audit entries");
        this.onRow(buf, row);
      }
    } catch (err) {
      this.failed = err as Error;
    }
  }

  handleError(err: Error): void {
    this.settle(err);
  }

  handleReadyForQuery(): void {
    this.settle(this.failed);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
}
