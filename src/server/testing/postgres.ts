import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * Finds a PostgreSQL server for tests, in the order stack.md gives: TEST_DATABASE_URL; the
 * machine's server at 127.0.0.1:5432; a throwaway cluster from the PostgreSQL binaries on the
 * machine (run as the postgres user, since PostgreSQL refuses root). Returns an admin URL.
 */
export async function findPostgres(): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) return { adminUrl: process.env.TEST_DATABASE_URL, stop: async () => undefined };
  const local = "postgresql://postgres@127.0.0.1:5432/postgres";
  if (await canConnect(local)) return { adminUrl: local, stop: async () => undefined };
  return startThrowawayCluster();
}

async function canConnect(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function startThrowawayCluster() {
  const base = "/usr/lib/postgresql";
  const version = fs.existsSync(base) ? fs.readdirSync(base).sort().pop() : undefined;
  if (!version) {
    throw new Error("No PostgreSQL for tests: set TEST_DATABASE_URL, start one on 127.0.0.1:5432, or apt-get install postgresql.");
  }
  const bin = path.join(base, version, "bin");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-pg-"));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot ? execFileSync("runuser", ["-u", "postgres", "--", cmd, ...args]) : execFileSync(cmd, args);
  if (asRoot) execFileSync("chown", ["postgres", dir]);
  run(path.join(bin, "initdb"), ["-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  const args = ["-D", dir, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"];
  const child = asRoot
    ? spawn("runuser", ["-u", "postgres", "--", path.join(bin, "postgres"), ...args], { stdio: "ignore" })
    : spawn(path.join(bin, "postgres"), args, { stdio: "ignore" });
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  for (let i = 0; i < 100 && !(await canConnect(adminUrl)); i++) await new Promise((r) => setTimeout(r, 200));
  return {
    adminUrl,
    stop: async () => {
      child.kill("SIGINT");
      await new Promise((r) => setTimeout(r, 500));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  return copyDatabase(adminUrl, null, name);
}

/**
 * A new database `name`, a copy of `template` when given (PostgreSQL's CREATE DATABASE … TEMPLATE,
 * far cheaper than migrating again). Two copies of one template at once can meet "source database
 * is being accessed by other users" for a moment: tried again.
 */
export async function copyDatabase(adminUrl: string, template: string | null, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
        break;
      } catch (err) {
        if (!template || attempt >= 50 || !/being accessed by other users/.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await c.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops every database whose name starts with `prefix`, a few at a time. */
export async function dropDatabasesNamed(adminUrl: string, prefix: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  let names: string[];
  try {
    const { rows } = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [prefix]);
    names = rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
  for (let i = 0; i < names.length; i += 4) await Promise.all(names.slice(i, i + 4).map((n) => dropDatabase(adminUrl, n)));
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await c.end();
  }
}
