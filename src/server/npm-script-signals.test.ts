import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, within } from "./testing/instance";

/**
 * A supervisor (systemd, a container runtime running `npm run serve`, a process manager) signals
 * the main PID it started: npm's. The signal must reach the server, which drains and exits,
 * rather than stop npm and leave the server serving, orphaned.
 */

/** Every process below `root`, from `ps`. */
function descendants(root: number): number[] {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of rows)
      if (ppid === parent) {
        out.push(pid);
        queue.push(pid);
      }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

type Run = { child: ChildProcess; output: () => string; exited: Promise<{ code: number | null; signal: string | null }> };

function npmRun(script: string, args: string[], env: Record<string, string>): Run {
  const child = spawn("npm", ["run", "--silent", script, ...(args.length ? ["--", ...args] : [])], {
    env: {
      ...process.env,
      VITEST: "",
      BI_RUN_JOBS: "false",
      LOG_LEVEL: "info",
      BI_SHUTDOWN_DELAY_MS: "300",
      BI_SHUTDOWN_GRACE_MS: "3000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  started.push(child);
  return { child, output: () => output, exited };
}

// Whatever a failing run left behind (only the processes this file started) is stopped.
const started: ChildProcess[] = [];
const leftovers = new Set<number>();
afterEach(() => {
  for (const pid of leftovers) if (alive(pid)) process.kill(pid, "SIGKILL");
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  leftovers.clear();
  started.length = 0;
});

/** Sends SIGTERM to npm's own pid and waits (up to 20 s) until npm and everything it started are gone. */
async function terminateNpm(run: Run) {
  const tree = descendants(run.child.pid!);
  for (const pid of tree) leftovers.add(pid);
  expect(tree.length, "npm started the script's process").toBeGreaterThan(0);
  run.child.kill("SIGTERM");
  const exit = await Promise.race([run.exited, new Promise<null>((r) => setTimeout(() => r(null), 20_000))]);
  const gone = await within(20_000, async () => tree.every((pid) => !alive(pid)), 100);
  return { exit, gone, stillRunning: tree.filter(alive) };
}

describe("npm run serve / npm run worker under a supervisor that signals npm", () => {
  it("npm run serve: SIGTERM to npm's pid drains the server, the port stops answering, no process of it is left", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const run = npmRun("serve", ["--api-only"], { PORT: String(port), HOST: "127.0.0.1" });
    const up = await within(
      90_000,
      async () => {
        if (run.child.exitCode !== null) throw new Error(`npm run serve exited early:\n${run.output().slice(-2000)}`);
        return fetch(`${base}/v1/health`).then(
          (r) => r.ok,
          () => false,
        );
      },
      250,
    );
    expect(up, run.output().slice(-2000)).not.toBeNull();

    const { exit, gone, stillRunning } = await terminateNpm(run);
    expect(stillRunning, `processes of npm run serve still running:\n${run.output().slice(-2000)}`).toEqual([]);
    expect(gone).not.toBeNull();
    // The server stopped through its own SIGTERM handler (drain, then exit 0), which npm passes on.
    expect(exit, "npm exits with the server").toEqual({ code: 0, signal: null });
    await expect(fetch(`${base}/v1/health`)).rejects.toThrow();
  });

  it("npm run worker: SIGTERM to npm's pid stops the worker through its own shutdown, no process of it is left", async () => {
    const run = npmRun("worker", [], {});
    const up = await within(
      90_000,
      async () => {
        if (run.child.exitCode !== null) throw new Error(`npm run worker exited early:\n${run.output().slice(-2000)}`);
        return run.output().includes('"msg":"worker started"');
      },
      250,
    );
    expect(up, run.output().slice(-2000)).not.toBeNull();

    const { exit, stillRunning } = await terminateNpm(run);
    expect(stillRunning, `processes of npm run worker still running:\n${run.output().slice(-2000)}`).toEqual([]);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(run.output()).toContain('"msg":"worker stopped"');
  });
});
