// Builds native/chunk-digests.c into native/build/chunk-digests.node against the headers of the
// Node.js that runs this script (run by `npm install`; docs/performance.md, "Digests taken
// without OpenSSL's per-call dispatch"). Never fails the install: without a C compiler or Node's
// headers it says so and exits 0, and audit verification hashes with node:crypto instead.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const source = path.join(root, "native/chunk-digests.c");
const out = path.join(root, "native/build/chunk-digests.node");

function skip(why) {
  console.log(`native digests not built (${why}): audit verification hashes with node:crypto`);
  fs.rmSync(out, { force: true });
  process.exit(0);
}

if (!fs.existsSync(source)) skip("no source");
if (process.platform === "win32") skip("not built on Windows");
const includes = [process.env.npm_config_nodedir, path.resolve(path.dirname(process.execPath), "..")]
  .filter(Boolean)
  .map((dir) => path.join(dir, "include/node"))
  .find((dir) => fs.existsSync(path.join(dir, "node_api.h")) && fs.existsSync(path.join(dir, "openssl/sha.h")));
if (!includes) skip("Node.js headers with OpenSSL's not found");
fs.mkdirSync(path.dirname(out), { recursive: true });
const partial = `${out}.${process.pid}`;
const flags = ["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Wno-deprecated-declarations", `-I${includes}`];
if (process.platform === "darwin") flags.push("-undefined", "dynamic_lookup");
const cc = spawnSync(process.env.CC || "cc", [...flags, source, "-o", partial], { encoding: "utf8" });
if (cc.error || cc.status !== 0) {
  fs.rmSync(partial, { force: true });
  skip((cc.error?.message ?? cc.stderr.trim().split("\n")[0]) || `cc exited ${cc.status}`);
}
// Renamed into place whole, so that a process loading it never sees half a file.
fs.renameSync(partial, out);
console.log(`native digests built: ${path.relative(root, out)}`);
