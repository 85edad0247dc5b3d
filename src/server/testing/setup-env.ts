import { inject } from "vitest";

// Every test process talks to the run's PostgreSQL database and keeps local keys in a temp folder.
process.env.DATABASE_URL = inject("databaseUrl");
process.env.BI_DATA_DIR = inject("dataDir");
process.env.BI_ENV ??= "sandbox";
process.env.BI_PUBLIC_URL ??= "http://localhost:3000";
process.env.BI_RUN_JOBS = "false";
