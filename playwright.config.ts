import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { PrivateKey } from "@wharfkit/antelope";
import { e2eDatabase } from "./e2e/database";

const port = Number(process.env.E2E_PORT ?? 3107);

/**
 * Debian's headless shell (package chromium-headless-shell: the same Blink and V8 without the
 * browser's windowing, what Playwright itself runs headless) when it is installed: it takes half the
 * CPU of the full browser for the same specs on a 2-core machine. Otherwise Debian's Chromium.
 */
function chromium() {
  const shell = "/usr/lib/chromium/chromium-headless-shell";
  return fs.existsSync(shell) ? shell : "/usr/bin/chromium";
}
// Set once in the runner and inherited by its workers, so specs can reach the same embedded
// database (org:create talks to the running service over the operator socket in this folder).
process.env.E2E_DATA_DIR ??= path.join(os.tmpdir(), `bi-e2e-${process.pid}`);
const dataDir = process.env.E2E_DATA_DIR;
const db = e2eDatabase();
// The issuer key of the browser tests' attestation contract: made once, kept by the workers.
process.env.E2E_ATTESTATION_KEY ??= PrivateKey.generate("K1").toString();
const attestationKey = process.env.E2E_ATTESTATION_KEY;

// Pages are tested in Debian's Chromium (a browser download cannot work on these machines),
// against the service started as `npm run serve` on a throwaway PostgreSQL database with two
// workers, or on the embedded database with one (e2e/database.ts). Each spec makes organizations
// of its own, so specs do not depend on each other's data; the tests within a file run in order.
export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  // A password check (scrypt) or a first render can take seconds while the other worker loads the
  // same two cores: assertions wait up to 15 s for what they expect, instead of Playwright's 5 s.
  expect: { timeout: 15_000 },
  retries: 0,
  workers: db ? 2 : 1,
  globalTeardown: "./e2e/global-teardown.ts",
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? chromium(),
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
    command: `${db ? `psql '${db.adminUrl}' -Atqc 'CREATE DATABASE "${db.name}"' && ` : ""}node scripts/build-if-stale.mjs && npm run serve`,
    url: `http://127.0.0.1:${port}/v1/ready`,
    timeout: 240_000,
    reuseExistingServer: false,
    // The service's warnings and errors (LOG_LEVEL below) go into the run's output, where a failed
    // run's cause can be read afterwards.
    stdout: "pipe",
    env: {
      PORT: String(port),
      BI_DATA_DIR: dataDir,
      BI_PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: db?.url ?? "",
      // org:create and the dev outbox over the operator socket, on PostgreSQL as on the embedded database.
      BI_OPERATOR_SOCKET: "true",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
      // Console e2e: a webhook on loopback that never answers goes dead after 2 quick attempts, to be replayed.
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      WEBHOOK_MAX_ATTEMPTS: "2",
      WEBHOOK_BACKOFF_BASE_MS: "200",
      // Specs may speak for a client address of their own through X-Forwarded-For (e2e/signup.spec.ts).
      TRUSTED_PROXIES: "127.0.0.1/32",
      // An attestation contract the console can name (e2e/console-attestations.spec.ts); its node
      // is a closed port, so publications wait and retry, which the settings page shows as pending.
      ATTESTATION_CONTRACT: "e2eattest",
      ATTESTATION_ISSUER: "bindissuer",
      ATTESTATION_PRIVATE_KEY: attestationKey,
      ATTESTATION_API_URL: "http://127.0.0.1:9",
      // The sandbox first (what every spec starts with), and the EU wallet identity verification
      // for a spec that names it (e2e/wallet-consent.spec.ts).
      KYC_PROVIDERS: "sandbox,eudi_wallet",
    },
  },
});
