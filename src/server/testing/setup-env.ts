import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { copyDatabase } from "./postgres";

// Every test file talks to a database of its own, copied from the run's migrated template
// (global-setup.ts), and keeps local keys in the run's temp folder.
const template = inject("templateDatabase");
process.env.DATABASE_URL = await copyDatabase(inject("adminDatabaseUrl"), template, `${template}_f${randomBytes(5).toString("hex")}`);
process.env.BI_DATA_DIR = inject("dataDir");
process.env.BI_ENV ??= "sandbox";
process.env.BI_PUBLIC_URL ??= "http://localhost:3000";
process.env.BI_RUN_JOBS = "false";
