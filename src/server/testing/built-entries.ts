import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { inject } from "vitest";

/**
 * The entry points tests start as processes of their own (instances, workers, operator scripts).
 *
 * Loading them through tsx's loader compiles the app's ~340 modules in every process, about a
 * second of CPU and a second of wall time per start on two cores, and the service suite starts
 * about sixty. The run's global setup bundles them once with esbuild instead (our code in one
 * file per entry and shared chunks, every package still loaded from node_modules as in
 * production), and tests start `node <bundle>`. The topology suite (tests/topology) starts the
 * roles exactly as the image does, through tsx, so that path stays tested too.
 */
export const SPAWNED_ENTRIES = [
  "src/server/main.ts",
  "src/server/worker.ts",
  "scripts/erasure-replay.ts",
  "scripts/export-verify.ts",
  "scripts/outbox.ts",
  "scripts/screening-import.ts",
  "scripts/vc-verify.ts",
] as const;

const DAY_MS = 24 * 3600_000;

export type SpawnedEntry = (typeof SPAWNED_ENTRIES)[number];

/**
 * Bundles SPAWNED_ENTRIES into a new folder under node_modules/.cache, so that the packages
 * they import resolve from the project's node_modules; returns the folder.
 */
export async function buildSpawnedEntries(root: string): Promise<string> {
  const cache = path.join(root, "node_modules", ".cache", "bind-identity");
  fs.mkdirSync(cache, { recursive: true });
  // A run that was killed never removed its bundles: those older than a day go now.
  for (const name of fs.readdirSync(cache)) {
    const dir = path.join(cache, name);
    if (name.startsWith("entries-") && Date.now() - fs.statSync(dir).mtimeMs > DAY_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
  const outdir = fs.mkdtempSync(path.join(cache, "entries-"));
  await build({
    absWorkingDir: root,
    entryPoints: [...SPAWNED_ENTRIES],
    outdir,
    outbase: root,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    tsconfig: path.join(root, "tsconfig.json"),
    sourcemap: "linked",
    logLevel: "error",
  });
  return outdir;
}

/** The node arguments that start `entry` from this run's bundle (with source-mapped stack traces). */
export function entryArgs(entry: SpawnedEntry): string[] {
  const file = path.join(inject("entriesDir"), entry.replace(/\.ts$/, ".mjs"));
  return ["--enable-source-maps", file];
}
