import type pg from "pg";
import type { ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { connectDb, type Db, Prisma, type Tx, withPgSession } from "../../db/client";
import { canonicalText, entryHash, GENESIS_HASH, type HashFields } from "./chain";

export type VerifyResult = {
  valid: boolean;
  entries: number;
  headHash: string;
  firstInvalidEntryId?: string;
  reason?: string;
};

/** id, seq, prevHash, hash, actor, action, subjectType, subject, createdAt (ISO), data (its stored text). */
export type EntryRow = [string, number, string, string, string, string, string | null, string | null, string, string];
type Head = { seq: number; hash: string } | null;

/** One statement's columns, in EntryRow order; text only, so nothing is decoded that is not checked. */
export const ENTRY_COLUMNS = `id::text, seq, "prevHash", hash, actor, action, "subjectType", subject,
  to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), data::text`;
const BATCH = 5_000;

/**
 * Recomputes the organization's whole chain from one REPEATABLE READ snapshot: every hash, every
 * link, the sequence without gaps, and the head row (which catches removal of the newest entries).
 * Names the first bad entry.
 *
 * On PostgreSQL the database writes each entry's hashed text (see hashedText) and this process
 * only hashes it and checks the links; a long chain is read as two halves on two sessions that
 * share one snapshot, so the database and the hashing each have a core. An entry whose text from
 * the database does not hash to its stored hash is checked again column by column, as before
 * (which also canonicalises, from its meaning, an entry whose stored `data` is not its JCS text:
 * appended before it was kept so). The embedded database is read in pages and checked column by
 * column.
 */
export async function verifyChain(db: Db, orgId: string): Promise<VerifyResult> {
  const streamed = await verifyOnPostgres(orgId);
  if (streamed) return streamed;
  return db.$transaction((tx) => verifyPaged(tx, orgId), { isolationLevel: "RepeatableRead", timeout: 120_000, maxWait: 10_000 });
}

/**
 * The JCS text that entryCanonical hashes, written by PostgreSQL from the columns. `to_json` of a
 * text renders it exactly as JSON.stringify does (the same escapes: \" \\ \b \f \n \r \t, other
 * controls as lower-case \u00xx, everything else as is), an integer's text is its JSON,
 * `data` keeps its JCS text byte for byte, and the organization is the one asked for, quoted here
 * by JSON.stringify (`orgJson`, an SQL literal), as the column-by-column check quotes it.
 * `prevHash` goes in unescaped: its hash check only counts once the walk has found it equal to the
 * previous entry's hash (or GENESIS_HASH), which is 64 hex digits. A text that differs from
 * entryCanonical's anyway only sends its entry to the column-by-column check.
 */
const hashedText = (orgJson: string) => `'{"action":' || to_json(action)::text || ',"actor":' || to_json(actor)::text
  || ',"createdAt":"' || to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","data":' || data::text
  || ',"orgId":' || ${orgJson} || ',"prevHash":"' || "prevHash" || '","seq":' || seq::text
  || ',"subject":' || coalesce(to_json(subject)::text, 'null') || ',"subjectType":' || coalesce(to_json("subjectType")::text, 'null')
  || ',"v":1}'`;

/** Below this many entries one session reads the whole chain. */
const SPLIT_FROM = 20_000;

export type VerifyOptions = {
  /** The first seq of the second session's half (default: half of the highest seq, from SPLIT_FROM entries on). */
  splitAt?: number;
};

/** verifyChain on PostgreSQL, with the split point chosen (tests); null on the embedded database. */
export async function verifyOnPostgres(orgId: string, options: VerifyOptions = {}): Promise<VerifyResult | null> {
  const { pool } = await connectDb();
  if (!pool) return null;
  return withPgSession(async (client) => {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      const head = (await client.query<{ seq: number; hash: string }>(`SELECT seq, hash FROM audit_heads WHERE "orgId" = $1`, [orgId]))
        .rows[0];
      const { rows } = await client.query<{ top: number | null; stray: string | null }>(
        `SELECT (SELECT max(seq) FROM audit_entries WHERE "orgId" = $1) AS top,
                (SELECT id::text FROM audit_entries WHERE "orgId" = $1 AND seq < 1 LIMIT 1) AS stray`,
        [orgId],
      );
      const top = rows[0]?.top ?? 0;
      const splitAt = options.splitAt ?? (top >= SPLIT_FROM ? Math.floor(top / 2) + 1 : undefined);
      const second = splitAt !== undefined && splitAt > 1 && splitAt <= top ? await sharedSnapshotSession(pool, client) : null;
      let segments: Segment[];
      if (second) {
        try {
          // When the first half fails the second's answer is not needed; when the second fails, the first still decides.
          const abort = { stop: false };
          const firstHalf = readSegment(client, orgId, 1, splitAt!).then((s) => {
            if (s.failure) abort.stop = true;
            return s;
          });
          segments = await Promise.all([firstHalf, readSegment(second.client, orgId, splitAt!, top + 1, abort)]);
        } finally {
          await second.end();
        }
      } else {
        segments = [await readSegment(client, orgId, 1, top + 1)];
      }
      return join(segments, head ?? null, rows[0]?.stray ?? undefined);
    } finally {
      await client.query("COMMIT");
    }
  });
}

/**
 * A second pooled session in the first one's snapshot (pg_export_snapshot), or null when the pool
 * has none to spare within a second: verification then reads on one session rather than wait for
 * a connection that other verifications, each holding one, might be waiting for too.
 */
async function sharedSnapshotSession(pool: pg.Pool, first: pg.PoolClient): Promise<{ client: pg.PoolClient; end(): Promise<void> } | null> {
  if (pool.waitingCount > 0 || (pool.idleCount === 0 && pool.totalCount >= pool.options.max)) return null;
  const connecting = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const client = await Promise.race([connecting, new Promise<null>((resolve) => (timer = setTimeout(resolve, 1_000, null)))]);
  clearTimeout(timer);
  if (!client) {
    connecting.then(
      (c) => c.release(),
      () => undefined,
    );
    return null;
  }
  try {
    const id = (await first.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0]!.id;
    if (!/^[0-9A-F-]+$/i.test(id)) throw new Error(`unexpected snapshot id ${id}`);
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    await client.query(`SET TRANSACTION SNAPSHOT '${id}'`);
  } catch (err) {
    client.release(err as Error);
    return null;
  }
  return {
    client,
    async end() {
      let failed: Error | undefined;
      try {
        await client.query("COMMIT");
      } catch (err) {
        failed = err as Error;
      }
      client.release(failed);
    },
  };
}

/**
 * What one session found in its range of seq: its first row's seq, id and prevHash (checked
 * against the end of the range before it by join), then every following link and every hash.
 * A failure carries the walk's count and last good hash at that entry.
 */
type Segment = {
  first?: { id: string; seq: number; prevHash: string };
  count: number;
  expectedSeq: number;
  prevHash: string;
  failure?: { id: string; reason: string; count: number; prevHash: string };
};

const HASH_MISMATCH = "hash does not match the entry's contents";

let suspectsChecked = 0;
/** Entries this process has checked column by column because the database's text did not hash to their hash (tests). */
export const columnByColumnChecks = () => suspectsChecked;

/**
 * Walks the entries with from <= seq < to. The rows arrive as one binary COPY (each row one
 * message of raw bytes: no per-column decoding into JavaScript values, and the hashed text is
 * hashed as the bytes PostgreSQL sent). An entry whose text does not hash to its hash is set
 * aside and checked column by column once the COPY has ended, in the same snapshot.
 */
async function readSegment(client: pg.PoolClient, orgId: string, from: number, to: number, abort?: { stop: boolean }): Promise<Segment> {
  const seg: Segment = { count: 0, expectedSeq: from, prevHash: "" };
  /** Entries to check column by column, with the walk's state before each. */
  const suspects: { id: string; count: number; prevHash: string }[] = [];
  const org = client.escapeLiteral(orgId);
  const copy = new CopyOut(
    `COPY (SELECT seq, "prevHash", hash, ${hashedText(client.escapeLiteral(JSON.stringify(orgId)))}, id FROM audit_entries
       WHERE "orgId" = ${org} AND seq >= ${int(from)} AND seq < ${int(to)} ORDER BY seq) TO STDOUT (FORMAT binary)`,
    (row) => {
      if (seg.failure || abort?.stop) return; // the rest drains unread
      const f = row.fields;
      const seq = row.buf.readInt32BE(f[0]!);
      const prevHash = row.text(1)!;
      const hash = row.text(2)!;
      if (!seg.first) {
        seg.first = { id: row.uuid(4), seq, prevHash };
        seg.expectedSeq = seq;
        seg.prevHash = prevHash;
      } else if (seq !== seg.expectedSeq) {
        seg.failure = {
          id: row.uuid(4),
          reason: `entry ${seg.expectedSeq} is missing before this entry`,
          count: seg.count,
          prevHash: seg.prevHash,
        };
        return;
      } else if (prevHash !== seg.prevHash) {
        seg.failure = {
          id: row.uuid(4),
          reason: "prevHash does not match the previous entry's hash",
          count: seg.count,
          prevHash: seg.prevHash,
        };
        return;
      }
      const text = row.bytes(3);
      if (!text || sha256Hex(text) !== hash) suspects.push({ id: row.uuid(4), count: seg.count, prevHash: seg.prevHash });
      seg.prevHash = hash;
      seg.expectedSeq++;
      seg.count++;
    },
  );
  await client.query(copy);
  await copy.done;
  // The first suspect that fails the column-by-column check comes before any failure found above.
  suspectsChecked += suspects.length;
  for (let i = 0; i < suspects.length; i += 5_000) {
    const batch = suspects.slice(i, i + 5_000);
    const { rows } = await client.query<EntryRow>({
      text: `SELECT ${ENTRY_COLUMNS} FROM audit_entries WHERE "orgId" = $1 AND id = ANY($2::uuid[])`,
      values: [orgId, batch.map((s) => s.id)],
      rowMode: "array",
    });
    const byId = new Map(rows.map((r) => [r[0], r]));
    for (const s of batch) {
      const r = byId.get(s.id);
      const fine =
        !!r && hashes({ orgId, seq: r[1], actor: r[4], action: r[5], subjectType: r[6], subject: r[7], prevHash: r[2] }, r[8], r[9], r[3]);
      if (!fine) {
        seg.failure = { id: s.id, reason: HASH_MISMATCH, count: s.count, prevHash: s.prevHash };
        return seg;
      }
    }
  }
  return seg;
}

/** A bound written into COPY's text (COPY takes no parameters). */
function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

/** One row of a binary COPY: the offsets of its fields in `buf` (-1: NULL). */
class CopyRow {
  buf!: Buffer;
  fields: number[] = [];
  lengths: number[] = [];
  text(i: number): string | null {
    const at = this.fields[i]!;
    return at < 0 ? null : this.buf.toString("utf8", at, at + this.lengths[i]!);
  }
  bytes(i: number): Buffer | null {
    const at = this.fields[i]!;
    return at < 0 ? null : this.buf.subarray(at, at + this.lengths[i]!);
  }
  uuid(i: number): string {
    const h = this.buf.toString("hex", this.fields[i]!, this.fields[i]! + 16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

const COPY_SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/**
 * `COPY … TO STDOUT (FORMAT binary)` as a pg query: hands each row to `onRow` as the message
 * arrives (the row's bytes are valid only during the call). pg runs any object with `submit` as
 * a query and passes it the protocol messages, as pg-cursor does.
 */
class CopyOut implements pg.Submittable {
  readonly done: Promise<void>;
  private settle!: (err?: Error) => void;
  private failed?: Error;
  private readonly row = new CopyRow();

  constructor(
    private readonly text: string,
    private readonly onRow: (row: CopyRow) => void,
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
        if (count < 0) return; // the trailer
        const row = this.row;
        row.buf = buf;
        for (let i = 0; i < count; i++) {
          const len = buf.readInt32BE(at);
          at += 4;
          row.fields[i] = len < 0 ? -1 : at;
          row.lengths[i] = len;
          if (len > 0) at += len;
        }
        this.onRow(row);
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

/** The sequential walk's answer from the segments' (in seq order): each must start where the one before ended. */
function join(segments: Segment[], head: Head, strayId: string | undefined): VerifyResult {
  let count = 0;
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  for (const seg of segments) {
    if (!seg.first) continue;
    const bad = (id: string, reason: string, entries: number, headHash: string): VerifyResult => ({
      valid: false,
      entries,
      headHash,
      firstInvalidEntryId: id,
      reason,
    });
    if (seg.first.seq !== expectedSeq) return bad(seg.first.id, `entry ${expectedSeq} is missing before this entry`, count, prevHash);
    if (seg.first.prevHash !== prevHash) return bad(seg.first.id, "prevHash does not match the previous entry's hash", count, prevHash);
    if (seg.failure) return bad(seg.failure.id, seg.failure.reason, count + seg.failure.count, seg.failure.prevHash);
    count += seg.count;
    prevHash = seg.prevHash;
    expectedSeq = seg.expectedSeq;
  }
  return finishWalk(count, prevHash, head, strayId);
}

async function verifyPaged(tx: Tx, orgId: string): Promise<VerifyResult> {
  const head = await tx.auditHead.findUnique({ where: { orgId }, select: { seq: true, hash: true } });
  const checker = new ChainChecker(orgId);
  for (let from = 1; ; from += BATCH) {
    const page = await tx.$queryRaw<Record<string, unknown>[]>(
      Prisma.sql`SELECT ${Prisma.raw(ENTRY_COLUMNS)} FROM audit_entries WHERE "orgId" = ${orgId}::uuid AND seq >= ${from} ORDER BY seq LIMIT ${BATCH}`,
    );
    const failed = checker.check(page.map((r) => Object.values(r) as EntryRow));
    if (failed) return failed;
    if (page.length < BATCH) break;
  }
  const stray = await tx.auditEntry.findFirst({ where: { orgId, seq: { lt: 1 } }, select: { id: true } });
  return checker.finish(head, stray?.id);
}

/**
 * Walks entries in seq order from `expectedSeq`, each linking to the one before (the first to
 * `prevHash`); the first bad one ends the walk. Verification and exports both check with it.
 */
export class ChainChecker {
  private count = 0;

  constructor(
    private readonly orgId: string,
    private expectedSeq = 1,
    private prevHash = GENESIS_HASH,
  ) {}

  check(rows: EntryRow[]): VerifyResult | null {
    for (const [id, seq, prevHash, hash, actor, action, subjectType, subject, createdAt, dataText] of rows) {
      if (seq !== this.expectedSeq) return this.bad(id, `entry ${this.expectedSeq} is missing before this entry`);
      if (prevHash !== this.prevHash) return this.bad(id, "prevHash does not match the previous entry's hash");
      const fields = { orgId: this.orgId, seq, actor, action, subjectType, subject, prevHash };
      if (!hashes(fields, createdAt, dataText, hash)) return this.bad(id, "hash does not match the entry's contents");
      this.prevHash = hash;
      this.expectedSeq++;
      this.count++;
    }
    return null;
  }

  private bad(firstInvalidEntryId: string, reason: string): VerifyResult {
    return { valid: false, entries: this.count, headHash: this.prevHash, firstInvalidEntryId, reason };
  }

  finish(head: Head, strayId: string | undefined): VerifyResult {
    return finishWalk(this.count, this.prevHash, head, strayId);
  }
}

/** The end of a walk that found no bad entry: no entry below seq 1, and the head row agrees. */
function finishWalk(entries: number, headHash: string, head: Head, strayId: string | undefined): VerifyResult {
  // appendAudit never writes seq < 1; the walk starts at 1, so such entries are looked for apart.
  if (strayId) return { valid: false, entries, headHash, firstInvalidEntryId: strayId, reason: "entry has a sequence number below 1" };
  const headSeq = head?.seq ?? 0;
  if (headSeq !== entries) {
    return { valid: false, entries, headHash, reason: `the chain head records ${headSeq} entries but ${entries} are present` };
  }
  if (head && headSeq > 0 && head.hash !== headHash) {
    return { valid: false, entries, headHash, reason: "the chain head's hash does not match the last entry" };
  }
  return { valid: true, entries, headHash };
}

type FixedFields = Omit<HashFields, "createdAt" | "data">;

function hashes(fields: FixedFields, createdAtIso: string, dataText: string, hash: string): boolean {
  // The stored bytes first: the hashed ones for every entry appended since data kept its JCS text.
  if (sha256Hex(canonicalText(fields, createdAtIso, dataText)) === hash) return true;
  // Otherwise by meaning, as every entry used to be checked (only for entries from before that).
  try {
    return entryHash({ ...fields, createdAt: new Date(createdAtIso), data: JSON.parse(dataText) }) === hash;
  } catch {
    return false;
  }
}

/** Verifies the caller's organization's chain (a read: it writes no audit entry of its own). */
export const verifyAudit = (ctx: ServiceContext) => verifyChain(ctx.db, ctx.org.id);

/** The public shape of a row (API list and export artifact), `data` parsed from its stored text. */
export const entryRowView = ([id, seq, prevHash, hash, actor, action, subjectType, subject, createdAt, dataText]: EntryRow) => ({
  id,
  seq,
  actor,
  action,
  subjectType,
  subject,
  data: JSON.parse(dataText) as Record<string, unknown>,
  createdAt,
  prevHash,
  hash,
});
