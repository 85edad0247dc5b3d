// npm run contracts:build [-- --check]
// Compiles each contract, contracts/<name>/<name>.contract.ts, with proton-tsc (offline) into
// contracts/<name>/target/<name>.contract.{wasm,abi}, the committed artefacts the tests run and a
// deployment uploads, and records in contracts/build-hash.json the SHA-256 of every source, of both
// artefacts and the compiler's versions. The compiler writes its by-products (.wast, generated .ts)
// beside the source, so each contract is compiled in a temporary copy and only the two artefacts
// come back. Its output is the same byte for byte for the same sources and versions.
// --check builds in a temporary folder, writes nothing in the repository, and fails unless the
// committed artefacts and build-hash.json are exactly what a build makes now (contracts/build.test.ts
// runs it). A check that passed is remembered in the user's cache folder under a digest of
// everything it read (this script, every source, both artefacts, build-hash.json and the compiler's
// versions): the same inputs pass again without the minute of compiling, since the build is
// deterministic. Any change to any of them, or --no-cache, builds again.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const CONTRACTS = path.join(ROOT, "contracts");
const HASH_FILE = path.join(CONTRACTS, "build-hash.json");
/** The packages whose versions decide the bytes of a build. */
const COMPILER = ["proton-tsc", "proton-asc", "as-chain", "assemblyscript", "binaryen"];

const sha256 = (file) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/** The contracts: each folder of contracts/ holding <folder>.contract.ts. */
function contractNames() {
  return fs
    .readdirSync(CONTRACTS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(CONTRACTS, d.name, `${d.name}.contract.ts`)))
    .map((d) => d.name)
    .sort();
}

/** A contract's sources: the .ts files of its folder other than tests (target/ holds no source). */
function sourcesOf(name) {
  return fs
    .readdirSync(path.join(CONTRACTS, name))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .sort();
}

function compilerVersions() {
  const versions = {};
  for (const pkg of COMPILER) {
    versions[pkg] = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
  }
  return versions;
}

/** Compiles one contract in a temporary copy; returns the paths of its .wasm and .abi there. */
function compile(name, workDir) {
  const dir = path.join(workDir, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const file of sourcesOf(name)) fs.copyFileSync(path.join(CONTRACTS, name, file), path.join(dir, file));
  const entry = path.join(name, `${name}.contract.ts`);
  // proton-asc starts through ts-node's bin (its shebang), which must be on the PATH as under npm run.
  const bin = path.join(ROOT, "node_modules", ".bin");
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
  const r = spawnSync(path.join(bin, "proton-asc"), [entry], { cwd: workDir, encoding: "utf8", env });
  const target = path.join(dir, "target", `${name}.contract`);
  const built = { wasm: `${target}.wasm`, abi: `${target}.abi` };
  if (r.status !== 0 || !fs.existsSync(built.wasm) || !fs.existsSync(built.abi)) {
    // The compiler prints a trace line per file it reads; its errors are the lines that are not those.
    const output = `${r.stdout}\n${r.stderr}`
      .split("\n")
      .filter((l) => !l.startsWith("++++"))
      .join("\n");
    throw new Error(`proton-asc failed on contracts/${entry} (exit ${r.status ?? r.signal}):\n${output}`);
  }
  return built;
}

/** Builds every contract into outDir/<name>/ and returns what build-hash.json records of it. */
function build(outDir) {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "contracts-build-"));
  try {
    // The compiler resolves "proton-tsc" from the source's folder upwards.
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(workDir, "node_modules"), "dir");
    const record = { compiler: compilerVersions(), contracts: {} };
    for (const name of contractNames()) {
      const built = compile(name, workDir);
      const out = path.join(outDir, name);
      fs.mkdirSync(out, { recursive: true });
      fs.copyFileSync(built.wasm, path.join(out, `${name}.contract.wasm`));
      fs.copyFileSync(built.abi, path.join(out, `${name}.contract.abi`));
      record.contracts[name] = {
        sources: Object.fromEntries(sourcesOf(name).map((f) => [f, sha256(path.join(CONTRACTS, name, f))])),
        wasm: sha256(built.wasm),
        abi: sha256(built.abi),
      };
    }
    return record;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function writeBuild() {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "contracts-out-"));
  try {
    const record = build(outDir);
    for (const name of Object.keys(record.contracts)) {
      const target = path.join(CONTRACTS, name, "target");
      fs.mkdirSync(target, { recursive: true });
      for (const ext of ["wasm", "abi"]) {
        fs.copyFileSync(path.join(outDir, name, `${name}.contract.${ext}`), path.join(target, `${name}.contract.${ext}`));
      }
      console.log(`contracts/${name}/target/${name}.contract.{wasm,abi}`);
    }
    fs.writeFileSync(HASH_FILE, `${JSON.stringify(record, null, 2)}\n`);
    console.log("contracts/build-hash.json");
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

/** What differs between a build now and what is committed; empty when nothing does. */
function check() {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "contracts-check-"));
  try {
    const record = build(outDir);
    const problems = [];
    for (const name of Object.keys(record.contracts)) {
      for (const ext of ["wasm", "abi"]) {
        const rel = `contracts/${name}/target/${name}.contract.${ext}`;
        const committed = path.join(ROOT, rel);
        if (!fs.existsSync(committed)) problems.push(`${rel} is missing`);
        else if (!fs.readFileSync(committed).equals(fs.readFileSync(path.join(outDir, name, `${name}.contract.${ext}`))))
          problems.push(`${rel} differs from a build of its sources`);
      }
    }
    const recorded = fs.existsSync(HASH_FILE) ? fs.readFileSync(HASH_FILE, "utf8") : "";
    if (recorded !== `${JSON.stringify(record, null, 2)}\n`) problems.push("contracts/build-hash.json differs from a build now");
    return problems;
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

/** A digest of everything a check reads: equal digests, equal verdicts. */
function checkInputsDigest() {
  const h = createHash("sha256");
  const add = (label, data) => h.update(`${label}\0${data.length}\0`).update(data);
  add("script", fs.readFileSync(import.meta.filename));
  add("record", fs.existsSync(HASH_FILE) ? fs.readFileSync(HASH_FILE) : Buffer.alloc(0));
  add("compiler", JSON.stringify(compilerVersions()));
  for (const name of contractNames()) {
    for (const file of sourcesOf(name)) add(`contracts/${name}/${file}`, fs.readFileSync(path.join(CONTRACTS, name, file)));
    for (const ext of ["wasm", "abi"]) {
      const artefact = path.join(CONTRACTS, name, "target", `${name}.contract.${ext}`);
      add(`contracts/${name}/target/${ext}`, fs.existsSync(artefact) ? fs.readFileSync(artefact) : Buffer.alloc(0));
    }
  }
  return h.digest("hex");
}

const CHECK_CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "bind-identity", "contracts-check");

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  if (process.argv.includes("--digest")) {
    console.log(checkInputsDigest());
  } else if (process.argv.includes("--check")) {
    const passed = path.join(CHECK_CACHE, checkInputsDigest());
    if (!process.argv.includes("--no-cache") && fs.existsSync(passed)) {
      console.log(
        "✔ the committed contract builds are what their sources build to (a build of these same inputs passed: --no-cache builds again)",
      );
      process.exit(0);
    }
    const problems = check();
    if (problems.length) {
      for (const p of problems) console.error(`✘ ${p}`);
      console.error("Run npm run contracts:build and commit contracts/.");
      process.exit(1);
    }
    try {
      fs.mkdirSync(CHECK_CACHE, { recursive: true });
      fs.writeFileSync(passed, `${new Date().toISOString()}\n`);
    } catch {
      // No cache folder (read-only home): the next check builds again.
    }
    console.log("✔ the committed contract builds are what their sources build to");
  } else {
    writeBuild();
  }
}
