import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { entryArgs } from "./built-entries";

/** A real `--api-only` instance on the test database, as another machine behind a load balancer would run it. */
export type Instance = { base: string; child: ChildProcess; stdout: string; stderr: string; exited: Promise<number | null> };

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts `src/server/main.ts --api-only` (this run's bundle of it, built-entries.ts) in its own
 * node process, so a signal reaches the server itself, and waits until /v1/health answers.
 */
export async function startInstance(extraEnv: Record<string, string> = {}): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [...entryArgs("src/server/main.ts"), "--api-only"], {
    env: {
      ...process.env,
      VITEST: "",
      DATABASE_URL: process.env.DATABASE_URL,
      PORT: String(port),
      HOST: "127.0.0.1",
      BI_RUN_JOBS: "false",
      BI_DATA_DIR: process.env.BI_DATA_DIR,
      LOG_LEVEL: "silent",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const inst: Instance = {
    base: `http://127.0.0.1:${port}`,
    child,
    stdout: "",
    stderr: "",
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))),
  };
  child.stdout!.on("data", (d) => (inst.stdout += d));
  child.stderr!.on("data", (d) => (inst.stderr += d));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`instance exited early:\n${inst.stderr.slice(-2000)}${inst.stdout.slice(-2000)}`);
    try {
      if ((await fetch(`${inst.base}/v1/health`)).ok) return inst;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`instance did not answer in time:\n${inst.stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Sends `signal` to the instance this test started (by its pid) and waits for it to exit. */
export async function stopInstance(inst: Instance | undefined, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  if (!inst?.child.pid || inst.child.exitCode !== null || inst.child.signalCode !== null) return inst?.child.exitCode ?? null;
  try {
    inst.child.kill(signal);
  } catch {
    // already gone
  }
  return inst.exited;
}

/** Polls `check` until it returns true or `withinMs` passes; returns the milliseconds it took, or null. */
export async function within(withinMs: number, check: () => Promise<boolean>, everyMs = 25): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) return null;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
