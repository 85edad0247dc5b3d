// The committed WASM + ABI are what the contracts' sources build to: the tests run them and a
// deployment uploads them, so a stale build would test and ship something else.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const sha256 = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

type Record = {
  compiler: { [pkg: string]: string };
  contracts: { [name: string]: { sources: { [file: string]: string }; wasm: string; abi: string } };
};

describe("the committed contract builds", () => {
  it("match contracts/build-hash.json: every source, both artefacts and the compiler's versions (fast)", () => {
    const record: Record = JSON.parse(fs.readFileSync(path.join(ROOT, "contracts/build-hash.json"), "utf8"));
    const stale = "is not what contracts/build-hash.json records: npm run contracts:build, then commit contracts/";
    const names = fs
      .readdirSync(path.join(ROOT, "contracts"))
      .filter((d) => fs.existsSync(path.join(ROOT, "contracts", d, `${d}.contract.ts`)));
    expect(Object.keys(record.contracts).sort()).toEqual(names.sort());
    expect(names).toEqual(expect.arrayContaining(["airdrop", "attestation"]));
    for (const [name, built] of Object.entries(record.contracts)) {
      const dir = path.join(ROOT, "contracts", name);
      const sources = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
        .sort();
      expect(Object.keys(built.sources), `contracts/${name}'s sources`).toEqual(sources);
      for (const file of sources) expect(sha256(path.join(dir, file)), `contracts/${name}/${file} ${stale}`).toBe(built.sources[file]);
      for (const ext of ["wasm", "abi"] as const) {
        const artefact = path.join(dir, "target", `${name}.contract.${ext}`);
        expect(sha256(artefact), `contracts/${name}/target/${name}.contract.${ext} ${stale}`).toBe(built[ext]);
      }
    }
    for (const [pkg, version] of Object.entries(record.compiler)) {
      const installed = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
      expect(installed, `${pkg} ${stale}`).toBe(version);
    }
    expect(record.compiler["proton-tsc"]).toBe("0.3.58");
  });

  it("are the sizes the on-chain guide's RAM estimate counts", () => {
    const size = (ext: string) => fs.statSync(path.join(ROOT, `contracts/attestation/target/attestation.contract.${ext}`)).size;
    const [wasm, abi] = [size("wasm"), size("abi")];
    // setcode bills ten times the WASM, setabi the ABI once.
    const kb = Math.round((wasm * 10 + abi) / 1000);
    const guide = fs.readFileSync(path.join(ROOT, "docs/api/guides/onchain.md"), "utf8");
    expect(guide).toContain(`The build is ${wasm.toLocaleString("en-US")} + ${abi.toLocaleString("en-US")} bytes, about ${kb} KB.`);
  });

  it("are byte for byte what a build of the sources makes now (npm run contracts:build -- --check)", { timeout: 240_000 }, () => {
    // A check of the same inputs that passed on this machine is remembered (scripts/contracts-build.mjs).
    const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/contracts-build.mjs"), "--check"], { cwd: ROOT, encoding: "utf8" });
    expect(`${r.stdout}${r.stderr}`.trim()).toMatch(
      /^✔ the committed contract builds are what their sources build to( \(a build of these same inputs passed: --no-cache builds again\))?$/,
    );
    expect(r.status).toBe(0);
  });

  it("are built again when any input of the check changes: one byte of an artefact changes the digest a passed check is remembered by", () => {
    const digest = (root: string) =>
      spawnSync(process.execPath, [path.join(root, "scripts/contracts-build.mjs"), "--digest"], {
        cwd: root,
        encoding: "utf8",
      }).stdout.trim();
    // A copy of the contracts and the script, with node_modules (the compiler's versions) shared.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "contracts-changed-"));
    try {
      fs.mkdirSync(path.join(copy, "scripts"));
      fs.copyFileSync(path.join(ROOT, "scripts/contracts-build.mjs"), path.join(copy, "scripts/contracts-build.mjs"));
      fs.cpSync(path.join(ROOT, "contracts"), path.join(copy, "contracts"), { recursive: true });
      fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"), "dir");
      const same = digest(copy);
      expect(same).toMatch(/^[0-9a-f]{64}$/);
      expect(same).toBe(digest(ROOT));
      const abi = path.join(copy, "contracts/airdrop/target/airdrop.contract.abi");
      fs.writeFileSync(abi, fs.readFileSync(abi, "utf8").replace('"version"', '"versiom"'));
      const changedArtefact = digest(copy);
      expect(changedArtefact).not.toBe(same);
      const source = path.join(copy, "contracts/attestation/attestation.contract.ts");
      fs.appendFileSync(source, "\n");
      expect(digest(copy)).not.toBe(changedArtefact);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
