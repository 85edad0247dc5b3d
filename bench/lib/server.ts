import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort } from "../../src/server/testing/instance";

export type BenchServer = {
  base: string;
  child: ChildProcess;
  logFile: string;
  stderr: string;
  dbQueries(): Promise<number>;
  stop(): Promise<void>;
};

const PRELOAD = path.resolve(import.meta.dirname, "count-queries.mjs");

/**
 * One `--api-only` instance in its own process (the load generator is the bench process), on
 * the bench database. Its stdout (the access log at info) goes to a file, as under a supervisor.
 * `dir` runs another checkout (the code before a change) against the same database.
 */
export async function startServer(opts: {
  databaseUrl: string;
  dataDir: string;
  logLevel: "warn" | "info";
  dir?: string;
  env?: Record<string, string>;
}): Promise<BenchServer> {
  const port = await freePort();
  const cwd = opts.dir ?? process.cwd();
  const logFile = path.join(opts.dataDir, `server-${port}.log`);
  const out = fs.openSync(logFile, "w");
  const child = spawn(process.execPath, ["--import", PRELOAD, "--import", "tsx", "src/server/main.ts", "--api-only"], {
    cwd,
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      BI_DATA_DIR: opts.dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      BI_RUN_JOBS: "false",
      LOG_LEVEL: opts.logLevel,
      NODE_ENV: "production",
      // Plan and per-IP limits lifted, so every answer is a 200 (the older code is patched instead: bench/before.sh).
      BI_RATE_LIMIT_FACTOR: "100000",
      // The write measurements give each call a client address of its own (KYC starts are budgeted per address).
      TRUSTED_PROXIES: "127.0.0.1/32",
      ...opts.env,
    },
    stdio: ["ignore", out, "pipe"],
  });
  fs.closeSync(out);
  const srv: BenchServer = {
    base: `http://127.0.0.1:${port}`,
    child,
    logFile,
    stderr: "",
    dbQueries: () =>
      new Promise((resolve) => {
        const before = srv.stderr.length;
        child.kill("SIGUSR2");
        const poll = setInterval(() => {
          const m = /BENCH_DB_QUERIES (\d+)/.exec(srv.stderr.slice(before));
          if (m) {
            clearInterval(poll);
            resolve(Number(m[1]));
          }
        }, 5);
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
  child.stderr!.on("data", (d) => (srv.stderr += d));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${srv.stderr.slice(-3000)}`);
    try {
      if ((await fetch(`${srv.base}/v1/health`)).ok) return srv;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not answer in time:\n${srv.stderr.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
