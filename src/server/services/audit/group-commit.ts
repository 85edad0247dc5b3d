import { randomUUID } from "node:crypto";
import type { AuditEntry } from "@/generated/prisma/client.ts";
import { type Actor, actorId } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { type Db, Prisma, rawQuery } from "../../db/client";
import { joinSql } from "../../db/sql";
import { type AuditInput, entryCanonical, type HashFields, type ChainHead as Head, readHead } from "./chain";

/**
 * Group commit of audit appends (docs/performance.md, "Write path"). Appends of one organization
 * that arrive while a commit of that organization is in flight wait in a small in-process queue;
 * the next commit takes all of them as ONE autocommitted statement: the entries, every write
 * that must commit with them, and the move of the chain head from where this process last saw it.
 *
 * - The head row is locked only for that one statement, and one WAL flush serves the whole group.
 * - Nothing is acknowledged before its statement has committed; a crash mid-statement rolls back
 *   the whole group, so the chain never has a gap or a fork.
 * - If another process moved the head meanwhile (the expected seq no longer matches), the
 *   statement raises and changes nothing; the head is read again and the group retried, and after
 *   repeated misses the group runs in a transaction that locks the head first.
 * - If one write of the group touches other than its rows (a row not in the state it expected, a
 *   position already taken), the statement names it: that append is run alone, where it fails
 *   (or not, if a member of its group was the cause) with its own write's number, and the rest
 *   of the group is retried as a group. Any other failure (a constraint) retries the group one
 *   append at a time. Either way only the failing append fails.
 */

/**
 * A data-modifying statement that commits with an entry; it must affect exactly `rows` rows (null:
 * any number). `beforeHead` runs it before the chain head is moved, so the rows it locks are taken
 * before the head's, in the lock order of the writes that still run in a transaction (person,
 * case, bindings, then the audit head): a grouped write racing such a transaction then waits for
 * it instead of deadlocking with it.
 */
export type GroupedWrite = { sql: Prisma.Sql; rows: number | null; beforeHead?: boolean };
export type GroupedAppend = {
  actor: Actor | string;
  input: AuditInput;
  writes?: GroupedWrite[];
  /** Further entries that commit with this one, chained right after it in this order (the append resolves to the first). */
  also?: { actor: Actor | string; input: AuditInput }[];
};

type Waiter = { item: GroupedAppend; resolve: (e: AuditEntry) => void; reject: (err: unknown) => void };
type Queue = { waiting: Waiter[]; running: boolean; head?: Head };
type Row = AuditEntry;

/** Bounds one statement's size (the entries go as three arrays: id, hashed bytes, hash). */
const MAX_GROUP = 256;
/** Optimistic attempts before a group takes the head's row lock for itself. */
const OPTIMISTIC_TRIES = 2;

const queues = new Map<string, Queue>();
const stats = { groups: 0, appends: 0, headMisses: 0, splits: 0, isolations: 0 };

/** Commits and entries so far in this process (the bench reports the average group size). */
export const groupCommitStats = () => ({ ...stats });

/**
 * Appends one entry, with the writes that must commit with it, through the organization's group
 * commit. Resolves once it is committed. Use it where the caller has no transaction of its own
 * (inside one, `appendAudit(tx, …)` is the way).
 */
export function appendAuditGrouped(db: Db, orgId: string, item: GroupedAppend): Promise<AuditEntry> {
  let queue = queues.get(orgId);
  if (!queue) {
    queue = { waiting: [], running: false };
    queues.set(orgId, queue);
  }
  const q = queue;
  return new Promise<AuditEntry>((resolve, reject) => {
    q.waiting.push({ item, resolve, reject });
    if (!q.running) void drain(db, orgId, q);
  });
}

async function drain(db: Db, orgId: string, q: Queue): Promise<void> {
  q.running = true;
  try {
    while (q.waiting.length > 0) await commitGroup(db, orgId, q, q.waiting.splice(0, MAX_GROUP));
  } finally {
    q.running = false;
  }
}

async function commitGroup(db: Db, orgId: string, q: Queue, group: Waiter[]): Promise<void> {
  try {
    const rows = await runGroup(db, orgId, q, group);
    stats.groups++;
    stats.appends += group.length;
    // Each member's first entry: members with further entries (`also`) take several rows.
    let at = 0;
    for (const w of group) {
      w.resolve(rows[at]!);
      at += 1 + (w.item.also?.length ?? 0);
    }
  } catch (err) {
    q.head = undefined; // a failed statement says nothing certain about where the head is
    if (group.length > 1) {
      // The statement named the write that failed: its member alone, the others still as a group.
      const culprit = memberOfFailedWrite(err, group);
      if (culprit !== null) return isolateMember(db, orgId, q, group, culprit);
      // A constraint failed the whole group: find whose, one at a time.
      return splitGroup(db, orgId, q, group);
    }
    group[0]!.reject(err);
  }
}

/** An error's message and driver details, where the statement's checks name what failed. */
const errorText = (err: unknown) => `${(err as Error)?.message ?? ""} ${JSON.stringify((err as { meta?: unknown })?.meta ?? {})}`;

/**
 * The number of the write a grouped statement's check found touching other than its rows
 * (`write N`, counted over the statement's writes in order; for an append run alone, its own
 * `writes`), or null for any other error.
 */
export function failedGroupedWrite(err: unknown): number | null {
  const m = /bi_assert failed: write (\d+)/.exec(errorText(err));
  return m ? Number(m[1]) : null;
}

/**
 * True when a write lost a race with another writer: a grouped statement's check found a row not
 * in the state it was read in, a unique key was taken meanwhile, or PostgreSQL broke a deadlock.
 * The caller reads again and retries; nothing of the failed statement was written.
 */
export function lostToConcurrentWrite(err: unknown): boolean {
  return failedGroupedWrite(err) !== null || uniqueKeyTaken(err) || /40P01|deadlock detected/i.test(errorText(err));
}

/** True when a unique index refused the write (Prisma's P2002, or PostgreSQL's 23505 through a raw statement). */
export function uniqueKeyTaken(err: unknown): boolean {
  return (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") || /23505|unique constraint/i.test(errorText(err));
}

/** The index in `group` of the member whose write the statement's check named, or null. */
function memberOfFailedWrite(err: unknown, group: Waiter[]): number | null {
  let n = failedGroupedWrite(err);
  if (n === null) return null;
  for (let i = 0; i < group.length; i++) {
    const count = group[i]!.item.writes?.length ?? 0;
    if (n < count) return i;
    n -= count;
  }
  return null;
}

async function isolateMember(db: Db, orgId: string, q: Queue, group: Waiter[], culprit: number): Promise<void> {
  stats.isolations++;
  await commitGroup(
    db,
    orgId,
    q,
    group.filter((_, i) => i !== culprit),
  );
  await commitGroup(db, orgId, q, [group[culprit]!]);
}

async function splitGroup(db: Db, orgId: string, q: Queue, group: Waiter[]): Promise<void> {
  stats.splits++;
  for (const w of group) await commitGroup(db, orgId, q, [w]);
}

async function runGroup(db: Db, orgId: string, q: Queue, group: Waiter[]): Promise<Row[]> {
  for (let attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
    q.head ??= await readHead(db, orgId);
    const rows = chainRows(orgId, q.head, group);
    try {
      await rawQuery(db, groupStatement(orgId, q.head, rows, group), { prepare: true });
      q.head = headAfter(rows);
      return rows;
    } catch (err) {
      if (!isAssertion(err, "head")) throw err;
      stats.headMisses++;
      q.head = undefined;
    }
  }
  // Another writer keeps moving the head: lock it for this group (one transaction, four round trips).
  return db.$transaction(
    async (tx) => {
      const head = await readHead(tx, orgId);
      const rows = chainRows(orgId, head, group);
      await tx.$queryRaw(groupStatement(orgId, head, rows, group));
      q.head = headAfter(rows);
      return rows;
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}

/** The entries of a group, hashed in order from `head`; createdAt never goes backwards along the chain. */
function chainRows(orgId: string, head: Head, group: Waiter[]): Row[] {
  let prevHash = head.hash;
  let seq = head.seq;
  let lastMs = head.lastMs;
  const now = Date.now();
  return group
    .flatMap(({ item }) => [item, ...(item.also ?? [])])
    .map((item) => {
      lastMs = Math.max(now, Math.round(lastMs));
      const fields: HashFields = {
        orgId,
        seq: ++seq,
        actor: typeof item.actor === "string" ? item.actor : actorId(item.actor),
        action: item.input.action,
        subjectType: item.input.subjectType ?? null,
        subject: item.input.subject ?? null,
        data: item.input.data ?? {},
        createdAt: new Date(lastMs),
        prevHash,
      };
      const canonical = entryCanonical(fields);
      const hash = sha256Hex(canonical);
      prevHash = hash;
      return { ...fields, id: randomUUID(), canonical, data: fields.data as AuditEntry["data"], hash };
    });
}

const headAfter = (rows: Row[]): Head => {
  const last = rows[rows.length - 1]!;
  return { seq: last.seq, hash: last.hash, lastMs: last.createdAt.getTime() };
};

/**
 * One statement: move the head from exactly `head`, insert the entries, run every member's
 * writes; then check that the head moved and each write touched its rows, or raise so that
 * all of it rolls back.
 */
function groupStatement(orgId: string, head: Head, rows: Row[], group: Waiter[]): Prisma.Sql {
  const last = rows[rows.length - 1]!;
  const col = <T>(f: (r: Row) => T) => rows.map(f);
  const writes = group.flatMap((w) => w.item.writes ?? []);
  const writeCtes = writes.map((w, i) => Prisma.sql`, ${Prisma.raw(`w${i}`)} AS (${w.sql} RETURNING 1)`);
  const checks = writes.flatMap((w, i) =>
    w.rows === null || w.beforeHead
      ? []
      : [Prisma.sql`, bi_assert((SELECT count(*) FROM ${Prisma.raw(`w${i}`)}) = ${w.rows}, ${`write ${i}`})`],
  );
  // The target list runs left to right: these writes (row count checked, or just run) come before the head's move.
  const first = writes.flatMap((w, i) =>
    !w.beforeHead
      ? []
      : w.rows === null
        ? [Prisma.sql`bi_assert((SELECT count(*) FROM ${Prisma.raw(`w${i}`)}) >= 0, ${`write ${i}`}),`]
        : [Prisma.sql`bi_assert((SELECT count(*) FROM ${Prisma.raw(`w${i}`)}) = ${w.rows}, ${`write ${i}`}),`],
  );
  return Prisma.sql`
    WITH head AS (
      UPDATE audit_heads SET seq = ${last.seq}, hash = ${last.hash}, "updatedAt" = (${last.createdAt.toISOString()}::timestamptz AT TIME ZONE 'UTC')
      WHERE "orgId" = ${orgId}::uuid AND seq = ${head.seq} AND hash = ${head.hash}
      RETURNING 1),
    entries AS (
      INSERT INTO audit_entries (id, canonical, hash)
      SELECT * FROM unnest(${col((r) => r.id)}::uuid[], ${col((r) => r.canonical)}::text[], ${col((r) => r.hash)}::text[])
      RETURNING 1)
    ${joinSql(writeCtes)}
    SELECT ${joinSql(first)} bi_assert(EXISTS (SELECT 1 FROM head), 'head moved') AS ok,
           bi_assert((SELECT count(*) FROM entries) = ${rows.length}, 'write entries') ${joinSql(checks)}`;
}

/** True when `err` is the group statement's own check that the head had not moved. */
function isAssertion(err: unknown, what: "head"): boolean {
  return errorText(err).includes(`bi_assert failed: ${what}`);
}
