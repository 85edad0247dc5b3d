// Builds the Next app unless `.next` already holds a build made after every file it could depend
// on last changed. The browser tests start the service with this: in `npm test` the smoke test has
// just built the same tree with `npm start`, and a second build would add minutes for nothing.
// Tests, browser tests, benchmarks and screenshots cannot change the build, so they do not count.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";

const IRRELEVANT = /^(tests|e2e|bench|docs\/screenshots|\.ci)\/|\.test\.tsx?$|\.md$/;
// Guides under docs/api are rendered by the app, so Markdown there does count.
const relevant = (file) => !IRRELEVANT.test(file) || file.startsWith("docs/api/");

function stale() {
  let built;
  try {
    built = fs.statSync(".next/BUILD_ID").mtimeMs;
  } catch {
    return "no build yet";
  }
  // Tracked and new (not ignored) files; a deleted file shows as changed through its folder's mtime.
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { encoding: "utf8" }).split("\n").filter(Boolean);
  const dirs = new Set();
  for (const file of files.filter(relevant)) {
    const parts = file.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    try {
      if (fs.statSync(file).mtimeMs > built) return `${file} changed since the last build`;
    } catch {
      return `${file} is gone since the last build`;
    }
  }
  for (const dir of dirs) if (fs.statSync(dir).mtimeMs > built) return `${dir}/ changed since the last build`;
  return null;
}

const reason = process.env.E2E_FORCE_BUILD ? "E2E_FORCE_BUILD is set" : stale();
if (reason) {
  console.log(`build-if-stale: building (${reason})`);
  const r = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
console.log("build-if-stale: .next is newer than every source file; using it");
