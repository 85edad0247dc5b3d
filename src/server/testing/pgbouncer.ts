import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./instance";

/**
 * A real PgBouncer in transaction mode in front of the test PostgreSQL, as a deployment behind a
 * pooler has it (docs/operations.md, "PgBouncer"): its own process on a free loopback port, its own
 * config in a temporary folder, trust authentication, every database name passed through to the
 * server. `url(database)` is that database through the pooler.
 */
export type Pgbouncer = {
  url(database: string): string;
  /** What PgBouncer logged so far ("got packet 'A' from server when not linked" and the like). */
  log(): string;
  stop(): Promise<void>;
};

const INSTALL = "pgbouncer is not installed: apt-get install -y pgbouncer (Debian's package; .ci/run installs it when missing)";

function pgbouncerBinary(): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).concat(["/usr/sbin", "/usr/local/sbin"])) {
    const candidate = path.join(dir, "pgbouncer");
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  throw new Error(INSTALL);
}

/**
 * Starts PgBouncer in front of the server of `upstreamUrl` (any database on it). `poolSize` server
 * connections per database and user: small, so that clients share server connections the way
 * many instances share a pooler.
 */
export async function startPgbouncer(upstreamUrl: string, opts: { poolSize?: number } = {}): Promise<Pgbouncer> {
  const binary = pgbouncerBinary();
  const upstream = new URL(upstreamUrl);
  const user = decodeURIComponent(upstream.username || "postgres");
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-pgbouncer-"));
  const logFile = path.join(dir, "pgbouncer.log");
  fs.writeFileSync(path.join(dir, "users.txt"), `"${user}" ""\n`);
  fs.writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${opts.poolSize ?? 2}`,
      "max_client_conn = 200",
      "ignore_startup_parameters = extra_float_digits,options",
      `logfile = ${logFile}`,
      "",
    ].join("\n"),
  );
  // PgBouncer refuses to run as root: as root (CI), it runs as the postgres user, which owns its folder.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync("chown", ["-R", "postgres", dir]);
  const args = [path.join(dir, "pgbouncer.ini")];
  const child: ChildProcess = asRoot
    ? spawn(binary, ["-u", "postgres", ...args], { stdio: ["ignore", "ignore", "pipe"] })
    : spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : "") + stderr;
  const url = (database: string) => `postgresql://${encodeURIComponent(user)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const probeDb = decodeURIComponent(upstream.pathname.slice(1)) || "postgres";
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      const why = log();
      await stop();
      throw new Error(`pgbouncer exited at start:\n${why.slice(-2000)}`);
    }
    const c = new pg.Client({ connectionString: url(probeDb), connectionTimeoutMillis: 1_000 });
    try {
      await c.connect();
      await c.query("SELECT 1");
      return { url, log, stop };
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`pgbouncer did not answer on port ${port}: ${(err as Error).message}\n${log().slice(-2000)}`);
      }
    } finally {
      await c.end().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
