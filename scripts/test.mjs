// `npm test`: every check, stopping at the first that fails, with each phase's wall time printed as
// it ends and all of them again at the end (CI reads where its minutes go from these).
// The type check and the linters only read the tree, so they run beside Vitest: on two cores the
// linters end in half a minute and the type check runs on one core, which would leave the other
// idle for as long if Vitest waited for them. Their output is printed whole when each ends, never
// interleaved with Vitest's; when one fails, the others in its group are stopped at once.
// (Vitest's smoke test rebuilds src/generated, but it runs last, minutes after the type check ends.)
import { spawn } from "node:child_process";

const PHASES = [
  [
    ["typecheck", "npm run typecheck", "buffered"],
    ["lint", "npm run lint", "buffered"],
    ["vitest", "npx vitest run"],
  ],
  [["e2e", "npm run test:e2e"]],
];

const timings = [];
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

const children = new Set();
let stopping = false;

function run(name, command, buffered) {
  const started = Date.now();
  return new Promise((resolve) => {
    // Its own process group, so a failure elsewhere in the group stops everything it started.
    const child = spawn(command, { shell: true, detached: true, stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit" });
    children.add(child);
    let out = "";
    if (buffered) {
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
    }
    child.on("exit", (code, signal) => {
      children.delete(child);
      const ms = Date.now() - started;
      if (buffered) process.stdout.write(out);
      const ok = code === 0;
      timings.push([name, ms, ok]);
      console.log(`[test] ${name}: ${ok ? "passed" : stopping ? "stopped" : `failed (${signal ?? `exit ${code}`})`} in ${seconds(ms)}`);
      if (!ok && !stopping) stopOthers();
      resolve(ok);
    });
  });
}

function stopOthers() {
  stopping = true;
  for (const child of children) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}
// The checks run in process groups of their own, which a Ctrl-C at the terminal does not reach.
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    stopOthers();
    process.exit(1);
  });
}

const started = Date.now();
let ok = true;
for (const group of PHASES) {
  const results = await Promise.all(group.map(([name, command, output]) => run(name, command, output === "buffered")));
  if (results.includes(false)) {
    ok = false;
    break;
  }
}
console.log(`[test] phases: ${timings.map(([n, ms, pass]) => `${n} ${seconds(ms)}${pass ? "" : " (failed)"}`).join(", ")}`);
console.log(`[test] ${ok ? "all passed" : "FAILED"} in ${seconds(Date.now() - started)}`);
process.exit(ok ? 0 : 1);
