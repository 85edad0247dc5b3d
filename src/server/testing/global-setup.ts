import fs from "node:fs";
import type { TestProject } from "vitest/node";
import { buildSpawnedEntries } from "./built-entries";
import { dropDatabasesNamed } from "./postgres";
import { throwawayDatabase } from "./throwaway-db";

declare module "vitest" {
  export interface ProvidedContext {
    /** The migrated database every test file's own database is copied from; nothing connects to it. */
    templateDatabase: string;
    adminDatabaseUrl: string;
    dataDir: string;
    /** This run's bundles of the entry points tests start as processes (built-entries.ts). */
    entriesDir: string;
  }
}

/**
 * One migrated template per run; each test file works in a copy of its own (setup-env.ts), so a
 * job runner that one file starts never claims another file's rows while that file compares
 * "before" and "after". All copies and the template are dropped at the end.
 */
export default async function setup(project: TestProject) {
  const db = await throwawayDatabase({ database: "bi_test", dataDir: "bi-data-" });
  const template = new URL(db.url).pathname.slice(1);
  project.provide("templateDatabase", template);
  project.provide("adminDatabaseUrl", db.adminUrl);
  project.provide("dataDir", db.dataDir);
  const entriesDir = await buildSpawnedEntries(process.cwd());
  project.provide("entriesDir", entriesDir);
  return async () => {
    fs.rmSync(entriesDir, { recursive: true, force: true });
    await dropDatabasesNamed(db.adminUrl, `${template}_f`);
    await db.drop();
  };
}
