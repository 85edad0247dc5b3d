import path from "node:path";
import { defineConfig } from "vitest/config";

// `npm run test:topology` (tests/topology): several processes of the service on loopback. It makes
// its own database, so it needs neither the suite's global setup nor its environment.
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    include: ["tests/topology/*.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
  },
});
