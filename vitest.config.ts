import path from "node:path";
import { defineConfig } from "vitest/config";

// tests/smoke.test.ts runs `npm start` as the README says, whose build regenerates the Prisma
// client in src/generated while other files may be starting instances from it: it runs alone,
// after everything else (sequence.groupOrder).
const SMOKE = "tests/smoke.test.ts";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    globalSetup: ["src/server/testing/global-setup.ts"],
    setupFiles: ["src/server/testing/setup-env.ts"],
    // A budget, not a speed check: on a loaded 2-core machine a test that starts processes can take several times its quiet time.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Files run one after another in each worker without a new process each: the packages the app
    // loads (a second or more per file) load once per worker. setup-env.ts undoes what a file
    // leaves in the process (environment, database connection, process-wide state, the app's modules).
    isolate: false,
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "service",
          include: ["src/**/*.test.ts", "tests/**/*.test.ts", "contracts/**/*.test.ts"],
          exclude: [SMOKE, "tests/topology/**"],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "smoke", include: [SMOKE], sequence: { groupOrder: 1 } } },
    ],
  },
});
