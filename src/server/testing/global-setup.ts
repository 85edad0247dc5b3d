import type { TestProject } from "vitest/node";
import { throwawayDatabase } from "./throwaway-db";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    adminDatabaseUrl: string;
    dataDir: string;
  }
}

/** One database per test run, migrated once, dropped at the end. */
export default async function setup(project: TestProject) {
  const db = await throwawayDatabase({ database: "bi_test", dataDir: "bi-data-" });
  project.provide("databaseUrl", db.url);
  project.provide("adminDatabaseUrl", db.adminUrl);
  project.provide("dataDir", db.dataDir);
  return db.drop;
}
