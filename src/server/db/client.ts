import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "@/env";
import { Prisma, PrismaClient } from "@/generated/prisma/client.ts";
import { logger } from "../log";
import { applyMigrations, migrationsUpToDate, type SqlExecutor } from "./migrate";

export type Db = PrismaClient;
/** What a service receives inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Prisma.TransactionClient;
export type DbOrTx = Db | Tx;

type Connection = {
  prisma: Db;
  /** Raw SQL access for migrations and readiness checks. */
  sql: SqlExecutor;
  kind: "postgres" | "embedded";
  /** PostgreSQL only: the pool, for streaming reads that need a session of their own. */
  pool?: pg.Pool;
  /** PostgreSQL itself (no pooler between): `rawQuery` may send statements by name (`preparedName`). */
  direct?: boolean;
  /** Embedded only: LISTEN on the one in-process database (PostgreSQL needs a dedicated client, see auth-cache-listener.ts). */
  listen?: (channel: string, onPayload: (payload: string) => void) => Promise<() => Promise<void>>;
  close(): Promise<void>;
};

// One connection per process, kept on globalThis so the custom server and Next's bundle share it
// (PGlite is a single in-process database and must never be opened twice).
const g = globalThis as unknown as { __biDb?: Promise<Connection> };

type NotificationHandler = (channel: string, payload: string) => void;
const notificationHandlers = new Set<NotificationHandler>();

/**
 * Notifications received by this process's pooled PostgreSQL sessions (the auth cache).
 * Each pooled session LISTENs on "bi_auth": PostgreSQL hands a session the notifications of its
 * own transaction before the COMMIT's answer, so a change written through this process is known
 * to its caches before the writer's await returns (other instances: auth-cache-listener.ts).
 */
export function onDbNotification(handler: NotificationHandler): () => void {
  notificationHandlers.add(handler);
  return () => notificationHandlers.delete(handler);
}

/**
 * Where the API-key cache LISTENs (auth-cache-listener.ts): DATABASE_DIRECT_URL when set, else
 * DATABASE_URL unless that goes through a transaction pooler (undefined then: no feed, no cache).
 */
export function listenUrl(): string | undefined {
  const e = env();
  return e.DATABASE_DIRECT_URL ?? (e.BI_DATABASE_POOLED ? undefined : e.DATABASE_URL);
}

/**
 * A pooled session that LISTENs on "bi_auth" before the pool hands it out: the LISTEN finishes
 * inside connect, so it never overlaps the first query (pg deprecates overlapping queries).
 */
class ListeningClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on("notification", (n) => {
      for (const h of notificationHandlers) h(n.channel, n.payload ?? "");
    });
  }

  // pg-pool connects with a callback; everything else with a promise.
  override connect(): Promise<pg.Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
  override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
    const ready = super
      .connect()
      .then(() => super.query("LISTEN bi_auth"))
      .then(() => this as pg.Client);
    if (!callback) return ready;
    const cb = callback as (err: Error | null, c?: pg.Client) => void;
    ready.then(
      (c) => cb(null, c),
      (err: Error) => cb(err),
    );
  }
}

/**
 * PostgreSQL through DATABASE_URL. Its sessions LISTEN only when DATABASE_URL is PostgreSQL
 * itself: through a transaction pooler a LISTEN stays on a server connection that other clients
 * then get (PgBouncer drops it when a notification arrives while it is idle: "got packet 'A' from
 * server when not linked"), so with DATABASE_DIRECT_URL or BI_DATABASE_POOLED the dedicated
 * listener alone hears changes, this process's own within milliseconds too. For the same reason
 * `rawQuery` sends statements by name only on a direct session (`preparedName`).
 */
async function openPostgres(url: string, direct: boolean): Promise<Connection> {
  // Two sessions outlive the 10 s idle timeout, so that a request after a quiet spell (an audit
  // verification reads on two) neither connects nor pays a new backend's first touches of the
  // buffer pool (docs/performance.md, "Where a first verification's time goes"). Idle sessions do
  // not keep the process alive: what must stay up holds a server or a timer of its own.
  const pool = new pg.Pool({ connectionString: url, max: 10, min: 2, allowExitOnIdle: true, Client: direct ? ListeningClient : pg.Client });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const sql: SqlExecutor = {
    async query(text, params) {
      const client = await pool.connect();
      try {
        return (await client.query(text, params as unknown[])).rows;
      } finally {
        client.release();
      }
    },
    async exec() {
      throw new Error("use a dedicated client for scripts");
    },
  };
  return {
    prisma,
    sql,
    kind: "postgres",
    pool,
    direct,
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
}

async function openEmbedded(dir: string): Promise<Connection> {
  fs.mkdirSync(dir, { recursive: true });
  // Loaded only here: a service on PostgreSQL never needs the embedded database's WebAssembly build.
  const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import("@electric-sql/pglite"), import("pglite-prisma-adapter")]);
  const lite = new PGlite(dir);
  await lite.waitReady;
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(lite) });
  const sql: SqlExecutor = {
    async query(text, params) {
      return (await lite.query(text, params as unknown[])).rows as never[];
    },
    async exec(text) {
      await lite.exec(text);
    },
  };
  return {
    prisma,
    sql,
    kind: "embedded",
    listen: (channel, onPayload) => lite.listen(channel, onPayload),
    async close() {
      await prisma.$disconnect();
      await lite.close();
    },
  };
}

/**
 * Runs migrations on a dedicated connection (a script needs one session for BEGIN/COMMIT): to
 * DATABASE_MIGRATION_URL when set (PostgreSQL itself, past any pooler), else DATABASE_URL.
 */
export async function migrateDatabase(): Promise<string[]> {
  const e = env();
  const url = e.DATABASE_MIGRATION_URL ?? e.DATABASE_URL;
  const opts = { lockWaitMs: e.BI_MIGRATION_LOCK_WAIT_MS };
  if (!url) {
    const conn = await connectDb();
    return applyMigrations(conn.sql, undefined, opts);
  }
  const client = new pg.Client({ connectionString: url, application_name: "bi-migrate" });
  await client.connect();
  try {
    return await applyMigrations(
      {
        query: async (text, params) => (await client.query(text, params as unknown[])).rows,
        exec: async (text) => {
          await client.query(text);
        },
      },
      undefined,
      opts,
    );
  } finally {
    await client.end();
  }
}

/**
 * What an instance, a worker and the operator scripts do before they start: apply pending
 * migrations, unless BI_MIGRATE_ON_START=false leaves them to a migration job (`npm run
 * db:migrate`, docs/operations.md "Starting and stopping"); null then.
 */
export async function migrateOnStart(): Promise<string[] | null> {
  if (!env().BI_MIGRATE_ON_START) return null;
  return migrateDatabase();
}

/** Opens the database of this process (PostgreSQL when DATABASE_URL is set, else embedded). */
export function connectDb(): Promise<Connection> {
  g.__biDb ??= (async () => {
    const e = env();
    return e.DATABASE_URL
      ? openPostgres(e.DATABASE_URL, !e.DATABASE_DIRECT_URL && !e.BI_DATABASE_POOLED)
      : openEmbedded(path.resolve(e.BI_DATA_DIR, "pglite"));
  })();
  return g.__biDb;
}

export async function getDb(): Promise<Db> {
  return (await connectDb()).prisma;
}

/**
 * Runs `fn` on a session of its own taken from the PostgreSQL pool (streaming reads with a
 * cursor, outside Prisma); null on the embedded database, where callers read in pages instead.
 */
export async function withPgSession<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T | null> {
  const { pool } = await connectDb();
  if (!pool) return null;
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    return await fn(client);
  } catch (err) {
    failed = err as Error; // a session left mid-statement is closed, not handed to the next caller
    throw err;
  } finally {
    client.release(failed);
  }
}

/**
 * Statements `rawQuery` sends by name (docs/performance.md, "Prepared statements"): each session
 * parses and plans such a text once and then only binds and runs it, as pgbench's prepared mode
 * does; unnamed, PostgreSQL parses and plans every statement again. Only on a session to
 * PostgreSQL itself: a transaction pooler hands a client's statements to whichever server
 * connection is free, which may not hold the name (PgBouncer before 1.21, or without
 * `max_prepared_statements`). The name is a hash of the text, so a session holding a name holds
 * that text. At most PREPARED_TEXTS texts per process, so a session's plans stay bounded
 * (the grouped statement's text changes with its group).
 */
const PREPARED_TEXTS = 128;
const prepared = { on: true, names: new Map<string, string>() };

/** The name `text` is sent by, or undefined: naming is off or the texts are all taken. */
export function preparedName(text: string): string | undefined {
  if (!prepared.on) return undefined;
  let name = prepared.names.get(text);
  if (name === undefined && prepared.names.size < PREPARED_TEXTS) {
    name = `bi_${createHash("sha256").update(text).digest("base64url").slice(0, 24)}`;
    prepared.names.set(text, name);
  }
  return name;
}

/**
 * A session that does not hold a name the pool's client thinks it parsed (26000), or holds one it
 * did not (42P05): a transaction pooler between us and PostgreSQL that no setting told us about.
 * Either is refused before anything runs, so the statement is safe to send again unnamed.
 */
const isPoolerNameError = (err: unknown) => ["26000", "42P05"].includes((err as { code?: string })?.code ?? "");

async function poolQuery(pool: pg.Pool, sql: Prisma.Sql, name: string | undefined) {
  const values = sql.values as unknown[];
  if (!name) return pool.query(sql.text, values);
  try {
    return await pool.query({ name, text: sql.text, values });
  } catch (err) {
    if (!isPoolerNameError(err)) throw err;
    if (prepared.on) {
      prepared.on = false;
      logger().warn(
        { code: (err as { code: string }).code },
        'prepared statements off: DATABASE_URL goes through a transaction pooler; set BI_DATABASE_POOLED=true (docs/operations.md, "PgBouncer")',
      );
    }
    return pool.query(sql.text, values);
  }
}

/**
 * One statement outside the ORM: on PostgreSQL, outside a transaction, straight to the pool (one
 * round trip, autocommit); inside a transaction or on the embedded database, through Prisma. For
 * the few statements of the hottest write path (free create, grouped audit appends), where the
 * ORM's own work per query was most of the application's CPU per request (docs/performance.md).
 * `prepare`: send it by name where the session is PostgreSQL's own (above); only for statements
 * whose best plan does not depend on their values (writes and reads by key), since a named
 * statement may be run with a plan made for any values.
 */
export async function rawQuery<T>(db: DbOrTx, sql: Prisma.Sql, opts: { prepare?: boolean } = {}): Promise<T[]> {
  // A transaction client has no $connect (the test in tx.ts, which imports this module's types).
  if (typeof (db as Db).$connect === "function") {
    const { pool, direct } = await connectDb();
    if (pool) return (await poolQuery(pool, sql, opts.prepare && direct ? preparedName(sql.text) : undefined)).rows as T[];
  }
  return db.$queryRaw<T[]>(sql);
}

export async function isDatabaseReady(): Promise<boolean> {
  try {
    const conn = await connectDb();
    await conn.sql.query("SELECT 1");
    return await migrationsUpToDate(conn.sql);
  } catch {
    return false;
  }
}

export async function disconnectDb(): Promise<void> {
  const pending = g.__biDb;
  g.__biDb = undefined;
  if (pending) await (await pending).close();
}

export { Prisma };
