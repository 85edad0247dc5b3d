import { Prisma } from "@/generated/prisma/client.ts";
import type { DbOrTx } from "../db/client";
import { joinSql } from "../db/sql";

/**
 * A table worked as a leased queue: runners of any number of instances claim due rows with
 * FOR UPDATE SKIP LOCKED, each claim holding its rows until `lease` (a crashed runner's rows are
 * claimed again once it passes) under a fresh `token`; renewing or ending a claim needs the token,
 * so a runner whose lease ran out and was taken over changes nothing.
 *
 * The users describe their table; names and states are SQL written in code, never input.
 * Fragments a user adds (`where`, `set`, `select`, `join`) name the table `q`.
 */
export type WorkQueue = {
  table: string;
  /** The column naming the row's organization (a claim may be limited to some). */
  org: string;
  /** The column holding the row's state. */
  status: string;
  /** States a row waits in to be claimed. */
  waiting: readonly string[];
  /** The state of a claimed row; absent, a claimed row keeps its waiting state (the lease alone marks the claim). */
  running?: string;
  /** Where a try that failed waits for its retry (`fail` with `retryInMs`); the first waiting state unless said. */
  retry?: string;
  /** The state `finish` writes unless told another. */
  done: string;
  /** The state `fail` writes when there is no retry; a queue without one cannot fail for good. */
  failed?: string;
  /** The lease's end (`timestamp(3)`, UTC); null or past: free to claim. */
  lease: string;
  /** The current claim's token (`uuid`); null once the claim ended. */
  token: string;
  /** A counter each claim adds one to (the tries so far). */
  claims?: string;
  /** A row waits until this time (`timestamp(3)`, UTC). */
  due?: string;
  /** Claims take the oldest first by this column, then by id. */
  order: string;
};

/** A claim: the row and the token that proves its holder. */
export type Lease = { id: string; token: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STATE = /^[a-z_]+$/;

const ident = (name: string): Prisma.Sql => {
  if (!NAME.test(name)) throw new Error(`work queue: not a column or table name: ${name}`);
  return Prisma.raw(`"${name}"`);
};
const col = (name: string): Prisma.Sql => Prisma.sql`q.${ident(name)}`;
const state = (value: string): Prisma.Sql => {
  if (!STATE.test(value)) throw new Error(`work queue: not a state: ${value}`);
  return Prisma.raw(`'${value}'`);
};
const states = (values: readonly string[]): Prisma.Sql => Prisma.join(values.map(state), ", ");

const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
const inMs = (ms: number): Prisma.Sql => Prisma.sql`${NOW} + ${ms} * interval '1 millisecond'`;

/** States in which a row is held by a claim (and only its holder may renew or end it). */
const heldStates = (q: WorkQueue) => (q.running ? [q.running] : q.waiting);

/** The rows the holder of `lease` still holds: its token, in a held state. */
const held = (q: WorkQueue, lease: Lease): Prisma.Sql =>
  Prisma.sql`q.id = ${lease.id}::uuid AND ${col(q.token)} = ${lease.token}::uuid AND ${col(q.status)} IN (${states(heldStates(q))})`;

export type ClaimOptions = {
  limit: number;
  leaseMs: number;
  /** Only these organizations' rows (tests and benchmarks run their own). */
  orgIds?: readonly string[] | null;
  /** Rows in these states instead of the waiting ones (a resend takes a failed or dead delivery). */
  from?: readonly string[];
  /** Rows whatever their due time (a resend sends now). */
  anyTime?: boolean;
  /** At most `max` rows of one value of `column` per claim, so one busy key cannot take every slot. */
  perKey?: { column: string; max: number };
  /** More conditions a row must meet. */
  where?: Prisma.Sql;
  /** More columns the claim writes (never the state, lease, token or counter the queue writes). */
  set?: Prisma.Sql;
  /** More columns to return, over the claimed row `q` and what `join` adds. */
  select?: Prisma.Sql;
  /** Joins for `select`, e.g. `JOIN webhooks w ON w.id = q."webhookId"`. */
  join?: Prisma.Sql;
};

/**
 * Claims up to `limit` due rows, oldest first, and returns them with their token. A row is due in
 * a waiting (or running) state once its lease is null or past, so a crashed holder's row is
 * taken over after its lease; the claim counts a try, sets the running state, the lease and a new
 * token. Rows another claimer is taking at this moment are skipped (SKIP LOCKED), never shared.
 */
export async function claim<T extends object = object>(db: DbOrTx, q: WorkQueue, opts: ClaimOptions): Promise<Array<Lease & T>> {
  const from = opts.from ?? [...q.waiting, ...(q.running ? [q.running] : [])];
  const conditions = [
    Prisma.sql`${col(q.status)} IN (${states(from)})`,
    Prisma.sql`(${col(q.lease)} IS NULL OR ${col(q.lease)} < ${NOW})`,
    ...(q.due && !opts.anyTime ? [Prisma.sql`${col(q.due)} <= ${NOW}`] : []),
    ...(opts.orgIds ? [Prisma.sql`${col(q.org)} = ANY(${[...opts.orgIds]}::uuid[])`] : []),
    ...(opts.where ? [opts.where] : []),
  ];
  const order = Prisma.sql`${col(q.order)}, q.id`;
  const candidates = (limit: number, extra: Prisma.Sql) => Prisma.sql`
    SELECT q.id${extra} FROM ${ident(q.table)} q
    WHERE ${joinSql(conditions, " AND ")}
    ORDER BY ${order}
    LIMIT ${limit}
    FOR UPDATE OF q SKIP LOCKED`;
  // With a per-key cap, a few more candidates are locked than taken, then the cap picks among them.
  const picked = opts.perKey
    ? Prisma.sql`cand AS (${candidates(opts.limit * 4, Prisma.sql`, ${col(opts.perKey.column)} AS k, ${col(q.order)} AS o`)}),
      picked AS (
        SELECT id FROM (SELECT id, o, row_number() OVER (PARTITION BY k ORDER BY o, id) AS rn FROM cand) r
        WHERE rn <= ${opts.perKey.max}
        ORDER BY o, id
        LIMIT ${opts.limit})`
    : Prisma.sql`picked AS (${candidates(opts.limit, Prisma.empty)})`;
  const sets = [
    ...(q.running ? [Prisma.sql`${ident(q.status)} = ${state(q.running)}`] : []),
    ...(q.claims ? [Prisma.sql`${ident(q.claims)} = ${col(q.claims)} + 1`] : []),
    Prisma.sql`${ident(q.lease)} = ${inMs(opts.leaseMs)}`,
    Prisma.sql`${ident(q.token)} = gen_random_uuid()`,
    ...(opts.set ? [opts.set] : []),
  ];
  return db.$queryRaw<Array<Lease & T>>`
    WITH ${picked},
    claimed AS (
      UPDATE ${ident(q.table)} q SET ${joinSql(sets, ", ")}
      FROM picked p WHERE q.id = p.id
      RETURNING q.*)
    SELECT q.id::text AS id, ${col(q.token)}::text AS token${opts.select ? Prisma.sql`, ${opts.select}` : Prisma.empty}
    FROM claimed q ${opts.join ?? Prisma.empty}`;
}

/**
 * Extends the lease of a claim its holder still holds (and writes `set` with it, when `where`
 * holds too); false when the claim was taken over or ended, and then nothing is written.
 */
export async function renew(
  db: DbOrTx,
  q: WorkQueue,
  lease: Lease,
  opts: { leaseMs: number; set?: Prisma.Sql; where?: Prisma.Sql },
): Promise<boolean> {
  const sets = [Prisma.sql`${ident(q.lease)} = ${inMs(opts.leaseMs)}`, ...(opts.set ? [opts.set] : [])];
  const n = await db.$executeRaw`
    UPDATE ${ident(q.table)} q SET ${joinSql(sets, ", ")}
    WHERE ${held(q, lease)}${opts.where ? Prisma.sql` AND ${opts.where}` : Prisma.empty}`;
  return n === 1;
}

/**
 * The statement that ends a claim its holder still holds: the row goes to `status` (due again in
 * `dueInMs`, on a queue with a due time), its lease and token cleared, `set` written with it. For
 * a caller that needs the end of a claim inside a larger statement (`WITH d AS (…) …`); with no
 * RETURNING, it adds its own.
 */
export function settleSql(q: WorkQueue, lease: Lease, opts: { status?: string; dueInMs?: number; set?: Prisma.Sql } = {}): Prisma.Sql {
  const sets = [
    ...(opts.status ? [Prisma.sql`${ident(q.status)} = ${state(opts.status)}`] : []),
    Prisma.sql`${ident(q.lease)} = NULL`,
    Prisma.sql`${ident(q.token)} = NULL`,
    ...(q.due && opts.dueInMs !== undefined ? [Prisma.sql`${ident(q.due)} = ${inMs(opts.dueInMs)}`] : []),
    ...(opts.set ? [opts.set] : []),
  ];
  return Prisma.sql`UPDATE ${ident(q.table)} q SET ${joinSql(sets, ", ")} WHERE ${held(q, lease)}`;
}

const settle = async (db: DbOrTx, sql: Prisma.Sql) => (await db.$executeRaw(sql)) === 1;

/**
 * Ends a claim for good in the queue's done state (or `status`). False when the holder no longer
 * held it (taken over, or already ended: ending twice writes nothing the second time).
 */
export function finish(db: DbOrTx, q: WorkQueue, lease: Lease, opts: { status?: string; set?: Prisma.Sql } = {}): Promise<boolean> {
  return settle(db, settleSql(q, lease, { status: opts.status ?? q.done, set: opts.set }));
}

/**
 * Ends a failed try: with `retryInMs`, the row waits in the retry state for another claim (due
 * after that long, on a queue with a due time); without, it ends in the failed state. False when
 * the holder no longer held it.
 */
export function fail(db: DbOrTx, q: WorkQueue, lease: Lease, opts: { retryInMs?: number; set?: Prisma.Sql } = {}): Promise<boolean> {
  const status = opts.retryInMs !== undefined ? (q.retry ?? q.waiting[0]) : q.failed;
  if (!status) throw new Error(`work queue: ${q.table} has no failed state`);
  return settle(db, settleSql(q, lease, { status, dueInMs: opts.retryInMs, set: opts.set }));
}

/**
 * Hands a claim back as it stands (its state unchanged, its lease over), so the next claim takes
 * it up where it is; false when the holder no longer held it.
 */
export function release(db: DbOrTx, q: WorkQueue, lease: Lease, opts: { set?: Prisma.Sql } = {}): Promise<boolean> {
  return settle(db, settleSql(q, lease, { set: opts.set }));
}
