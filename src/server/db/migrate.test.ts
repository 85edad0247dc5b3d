import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { resetEnvCache } from "@/env";
import { entryArgs } from "@/server/testing/built-entries";
import { freePort, type Instance, startInstance, stopInstance, within } from "../testing/instance";
import { type Pgbouncer, startPgbouncer } from "../testing/pgbouncer";
import { createDatabase, dropDatabase } from "../testing/postgres";
import { migrateDatabase, migrateOnStart } from "./client";
import { applyMigrations, MIGRATION_LOCK_ID, readMigrations, type SqlExecutor } from "./migrate";

// Migrations run from every instance, worker and operator script at start (docs/operations.md,
// "Starting and stopping"), also through a transaction pooler: the lock they share must never
// outlive the migrator that took it, and a migrator that meets a lock nobody releases must say so
// instead of waiting forever.

const adminUrl = inject("adminDatabaseUrl");
const made: string[] = [];
let bouncer: Pgbouncer | undefined;
let instance: Instance | undefined;

async function freshDatabase(): Promise<{ name: string; url: string }> {
  const name = `bi_migrate_${randomBytes(5).toString("hex")}`;
  made.push(name);
  return { name, url: await createDatabase(adminUrl, name) };
}

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

const executor = (c: pg.Client): SqlExecutor => ({
  query: async (text, params) => (await c.query(text, params as unknown[])).rows,
  exec: async (text) => void (await c.query(text)),
});

/** `work`, or a failure naming `what` once `ms` pass: a hang fails the test instead of stalling it. */
async function inTime<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Advisory locks on the migration lock's key in `url`'s database, granted or waited for, by any
 * session. (Advisory locks are per database; other test files' instances migrate their own
 * databases under the same key at the same time.)
 */
async function migrationLocks(url: string): Promise<number> {
  const c = await connect(url);
  try {
    const { rows } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND objsubid = 1
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [MIGRATION_LOCK_ID],
    );
    return rows[0]!.n;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  bouncer = await startPgbouncer(adminUrl, { poolSize: 2 });
});

let worker: ChildProcess | undefined;

afterAll(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill("SIGKILL");
  await stopInstance(instance);
  await bouncer?.stop();
  for (const name of made) await dropDatabase(adminUrl, name);
});

describe("migrations through PgBouncer in transaction mode", () => {
  it("are applied once by several migrators at once on a fresh database, and leave no lock held", async () => {
    const { name, url } = await freshDatabase();
    const migrations = readMigrations();
    const clients = await Promise.all(Array.from({ length: 4 }, () => connect(bouncer!.url(name))));
    try {
      const applied = await inTime(
        60_000,
        "four migrators through PgBouncer",
        Promise.all(clients.map((c) => applyMigrations(executor(c), migrations, { lockWaitMs: 30_000 }))),
      );
      expect(applied.flat().sort()).toEqual(migrations.map((m) => m.name).sort());
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    const direct = await connect(url);
    try {
      const { rows } = await direct.query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations" ORDER BY 1`);
      expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name).sort());
    } finally {
      await direct.end();
    }
    // No server connection, idle in the pool or not, still holds (or waits for) the lock…
    expect(await migrationLocks(url)).toBe(0);
    // …so the next release's migrator, through the pooler, gets it at once.
    const next = await connect(bouncer!.url(name));
    try {
      expect(await inTime(10_000, "a later migrator", applyMigrations(executor(next), migrations, { lockWaitMs: 2_000 }))).toEqual([]);
    } finally {
      await next.end();
    }
  });

  it("wait behind a lock held in a pooled transaction, then apply each migration once as it ends", async () => {
    // The interleaving the pooler makes possible, set up rather than hoped for: the lock is held by
    // a transaction on one of the pool's two server connections, one migrator waits for it on the
    // other, two more wait in PgBouncer for a server connection. Once the holder commits, each
    // migrator runs its steps on whichever server connection it is given.
    const { name, url } = await freshDatabase();
    const migrations = readMigrations();
    const holder = await connect(bouncer!.url(name));
    const clients = await Promise.all(Array.from({ length: 3 }, () => connect(bouncer!.url(name))));
    const direct = await connect(url);
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
      const applying = clients.map((c) => applyMigrations(executor(c), migrations, { lockWaitMs: 30_000 }));
      for (const a of applying) a.catch(() => undefined); // awaited below
      // A migrator is waiting for the lock inside PostgreSQL (not granted)…
      await inTime(
        30_000,
        "a migrator waiting for the lock",
        (async () => {
          for (;;) {
            const { rows } = await direct.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
              [MIGRATION_LOCK_ID],
            );
            if (rows[0]!.n >= 1) return;
            await new Promise((r) => setTimeout(r, 50));
          }
        })(),
      );
      // …and nothing is applied while the holder's transaction lasts.
      const { rows: table } = await direct.query<{ t: string | null }>(`SELECT to_regclass('"_prisma_migrations"')::text AS t`);
      expect(table[0]!.t).toBeNull();
      await holder.query("COMMIT");
      const applied = await inTime(60_000, "three migrators after the holder", Promise.all(applying));
      expect(applied.flat().sort()).toEqual(migrations.map((m) => m.name).sort());
      const { rows } = await direct.query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations" ORDER BY 1`);
      expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name).sort());
    } finally {
      await Promise.all([holder, direct, ...clients].map((c) => c.end()));
    }
    expect(await migrationLocks(url)).toBe(0);
  });

  it("leave no lock on a server connection another client takes over between a migrator's steps", async () => {
    // The pooler's hazard, step by step: a migrator's first step commits and its server connection
    // goes back to the pool; another client takes that connection into a transaction of its own
    // before the migrator's next statement, which therefore runs on another server connection.
    // A lock tied to the session (taken in one step, released by the next statement) would stay on
    // the taken-over connection and the migrator's next step would wait for it in vain.
    const { name, url } = await freshDatabase();
    const migrations = readMigrations();
    const migrator = await connect(bouncer!.url(name));
    const other = await connect(bouncer!.url(name));
    let firstPid: number | undefined;
    let committed!: () => void;
    const firstCommit = new Promise<void>((r) => (committed = r));
    let resume!: () => void;
    const gate = new Promise<void>((r) => (resume = r));
    const inner = executor(migrator);
    const gated: SqlExecutor = {
      query: inner.query,
      exec: async (text) => {
        if (text === "COMMIT" && firstPid === undefined) {
          firstPid = (await migrator.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
          await inner.exec(text);
          committed();
          await gate;
          return;
        }
        await inner.exec(text);
      },
    };
    try {
      const applying = applyMigrations(gated, migrations, { lockWaitMs: 3_000 });
      applying.catch(() => undefined); // awaited below
      await inTime(30_000, "the migrator's first step", firstCommit);
      await other.query("BEGIN");
      const otherPid = (await other.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      // The premise: the other client holds the server connection of the migrator's first step.
      expect(otherPid).toBe(firstPid);
      resume();
      const applied = await inTime(60_000, "the migrator on another server connection", applying);
      expect(applied.sort()).toEqual(migrations.map((m) => m.name).sort());
      await other.query("COMMIT");
    } finally {
      resume();
      await Promise.all([migrator.end(), other.end()]);
    }
    expect(await migrationLocks(url)).toBe(0);
  });
});

describe("a migrator that meets a lock nobody releases", () => {
  it("gives up after its wait with an error naming the holder and what to check, then migrates once the lock is gone", async () => {
    const url = process.env.DATABASE_URL!;
    // What an older release left behind through the pooler: a session-level lock on an idle session.
    const holder = await connect(url);
    const pid = (await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    await holder.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    const migrator = await connect(url);
    try {
      const started = Date.now();
      const failure = await inTime(
        15_000,
        "a migrator behind a held lock",
        applyMigrations(executor(migrator), undefined, { lockWaitMs: 300 }).then(
          () => null,
          (err: Error) => err.message,
        ),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(failure).toContain("gave up after waiting 300 ms for the migration lock");
      expect(failure).toContain(`PostgreSQL backend ${pid}`);
      expect(failure).toContain("pg_terminate_backend");
      expect(failure).toContain("DATABASE_MIGRATION_URL");
      // It waited in a transaction of its own, which is gone: it holds and waits for nothing now.
      expect(await migrationLocks(url)).toBe(1);
      await holder.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
      expect(
        await inTime(10_000, "the migrator once the lock is free", applyMigrations(executor(migrator), undefined, { lockWaitMs: 300 })),
      ).toEqual([]);
    } finally {
      await Promise.all([holder.end(), migrator.end()]);
    }
  });
});

describe("the migration settings", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ["DATABASE_URL", "DATABASE_MIGRATION_URL", "BI_MIGRATE_ON_START"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    resetEnvCache();
  });

  it("migrate DATABASE_MIGRATION_URL when it is set, not DATABASE_URL", async () => {
    const { url } = await freshDatabase();
    process.env.DATABASE_URL = "postgresql://nobody@127.0.0.1:1/unreachable";
    process.env.DATABASE_MIGRATION_URL = url;
    resetEnvCache();
    expect(await migrateDatabase()).toEqual(readMigrations().map((m) => m.name));
    expect(await migrateDatabase()).toEqual([]);
  });

  it("leave migrations to the migration job with BI_MIGRATE_ON_START=false: nothing is opened", async () => {
    process.env.DATABASE_URL = "postgresql://nobody@127.0.0.1:1/unreachable";
    process.env.BI_MIGRATE_ON_START = "false";
    resetEnvCache();
    expect(await migrateOnStart()).toBeNull();
    process.env.BI_MIGRATE_ON_START = "true";
    resetEnvCache();
    await expect(migrateOnStart()).rejects.toThrow();
  });

  it("start an instance on an unmigrated database with BI_MIGRATE_ON_START=false: live, not ready until the job has migrated", async () => {
    const { url } = await freshDatabase();
    instance = await startInstance({ DATABASE_URL: url, BI_MIGRATE_ON_START: "false" });
    expect((await fetch(`${instance.base}/v1/health`)).status).toBe(200);
    expect((await fetch(`${instance.base}/v1/ready`)).status).toBe(503);
    const c = await connect(url);
    try {
      expect((await c.query(`SELECT to_regclass('"_prisma_migrations"') AS t`)).rows[0].t).toBeNull();
      await applyMigrations(executor(c)); // the migration job
    } finally {
      await c.end();
    }
    expect((await fetch(`${instance.base}/v1/ready`)).status).toBe(200);
  });

  it("start a worker on an unmigrated database with BI_MIGRATE_ON_START=false: no jobs and /healthz 503 until the job has migrated", async () => {
    const { url } = await freshDatabase();
    const port = await freePort();
    let output = "";
    worker = spawn(process.execPath, [...entryArgs("src/server/worker.ts")], {
      env: {
        ...process.env,
        VITEST: "",
        DATABASE_URL: url,
        BI_MIGRATE_ON_START: "false",
        BI_METRICS_PORT: String(port),
        BI_METRICS_HOST: "127.0.0.1",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    worker.stdout!.on("data", (d) => (output += d));
    worker.stderr!.on("data", (d) => (output += d));
    const health = () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
    const waiting = await within(60_000, async () => output.includes("waiting for the migration job") && (await health()) === 503, 200);
    expect(waiting, output.slice(-2000)).not.toBeNull();
    expect(output).not.toContain("worker jobs started");
    const c = await connect(url);
    try {
      await applyMigrations(executor(c)); // the migration job
    } finally {
      await c.end();
    }
    const ready = await within(15_000, async () => (await health()) === 200, 200);
    expect(ready, output.slice(-2000)).not.toBeNull();
    expect(output).toContain("worker jobs started");
  });
});
