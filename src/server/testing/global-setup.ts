import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { applyMigrations } from "../db/migrate";
import { createDatabase, dropDatabase, findPostgres } from "./postgres";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    adminDatabaseUrl: string;
    dataDir: string;
  }
}

/** One database per test run, migrated once, dropped at the end. */
export default async function setup(project: TestProject) {
  const server = await findPostgres();
  const name = `bi_test_${process.pid}_${Date.now().toString(36)}`;
  const url = await createDatabase(server.adminUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await applyMigrations({
      query: async (text, params) => (await client.query(text, params as unknown[])).rows,
      exec: async (text) => void (await client.query(text)),
    });
  } finally {
    await client.end();
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-data-"));
  project.provide("databaseUrl", url);
  project.provide("adminDatabaseUrl", server.adminUrl);
  project.provide("dataDir", dataDir);
  return async () => {
    await dropDatabase(server.adminUrl, name);
    fs.rmSync(dataDir, { recursive: true, force: true });
    await server.stop();
  };
}
