import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3107);
// Set once in the runner and inherited by its workers, so specs can reach the same embedded
// database (org:create talks to the running service over the operator socket in this folder).
process.env.E2E_DATA_DIR ??= path.join(os.tmpdir(), `bi-e2e-${process.pid}`);
const dataDir = process.env.E2E_DATA_DIR;

// Pages are tested in Debian's Chromium (a browser download cannot work on these machines),
// against the service started as `npm run serve` on a throwaway embedded database.
export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  retries: 0,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  webServer: {
    // Reuses a build newer than every source file (in `npm test`, the smoke test's): scripts/build-if-stale.mjs.
    command: "node scripts/build-if-stale.mjs && npm run serve",
    url: `http://127.0.0.1:${port}/v1/ready`,
    timeout: 240_000,
    reuseExistingServer: false,
    env: {
      PORT: String(port),
      BI_DATA_DIR: dataDir,
      BI_PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: "",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
      // Console e2e: a webhook on loopback that never answers goes dead after 2 quick attempts, to be replayed.
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      WEBHOOK_MAX_ATTEMPTS: "2",
      WEBHOOK_BACKOFF_BASE_MS: "200",
      // Specs may speak for a client address of their own through X-Forwarded-For (e2e/signup.spec.ts).
      TRUSTED_PROXIES: "127.0.0.1/32",
    },
  },
});
