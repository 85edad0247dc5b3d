import fs from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "@/env";
import { Prisma, PrismaClient } from "@/generated/prisma/client.ts";
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
 * listener alone hears changes, this process's own within milliseconds too.
 */
async function openPostgres(url: string, listen: boolean): Promise<Connection> {
  const pool = new pg.Pool({ connectionString: url, max: 10, Client: listen ? ListeningClient : pg.Client });
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
 * One statement outside the ORM: on PostgreSQL, outside a transaction, straight to the pool (one
 * round trip, autocommit); inside a transaction or on the embedded database, through Prisma. For
 * the few statements of the hottest write path (free create, grouped audit appends), where the
 * ORM's own work per query was most of the application's CPU per request (docs/performance.md).
 */
export async function rawQuery<T>(db: DbOrTx, sql: Prisma.Sql): Promise<T[]> {
  // A transaction client has no $connect (the test in tx.ts, which imports this module's types).
  if (typeof (db as Db).$connect === "function") {
    const { pool } = await connectDb();
    if (pool) return (await pool.query(sql.text, sql.values as unknown[])).rows as T[];
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
