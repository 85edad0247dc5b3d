// `npm test`: every check in order, stopping at the first that fails, with each phase's wall time
// printed as it ends and all of them again at the end (CI reads where its minutes go from these).
// The type check and the linters only read the tree, so they run side by side, each on a core;
// their output is printed whole when each ends, never interleaved.
import { spawn } from "node:child_process";

const PHASES = [
  [
    ["typecheck", "npm run typecheck"],
    ["lint", "npm run lint"],
  ],
  [["vitest", "npx vitest run"]],
  [["e2e", "npm run test:e2e"]],
];

const timings = [];
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

function run(name, command, buffered) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit" });
    let out = "";
    if (buffered) {
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
    }
    child.on("exit", (code, signal) => {
      const ms = Date.now() - started;
      if (buffered) process.stdout.write(out);
      const ok = code === 0;
      timings.push([name, ms, ok]);
      console.log(`[test] ${name}: ${ok ? "passed" : `failed (${signal ?? `exit ${code}`})`} in ${seconds(ms)}`);
      resolve(ok);
    });
  });
}

const started = Date.now();
let ok = true;
for (const group of PHASES) {
  const results = await Promise.all(group.map(([name, command]) => run(name, command, group.length > 1)));
  if (results.includes(false)) {
    ok = false;
    break;
  }
}
console.log(`[test] phases: ${timings.map(([n, ms, pass]) => `${n} ${seconds(ms)}${pass ? "" : " (failed)"}`).join(", ")}`);
console.log(`[test] ${ok ? "all passed" : "FAILED"} in ${seconds(Date.now() - started)}`);
process.exit(ok ? 0 : 1);
