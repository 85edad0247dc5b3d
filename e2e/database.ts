import { spawnSync } from "node:child_process";

/**
 * Where the browser tests' service keeps its data. On a machine with a PostgreSQL server (the one
 * the Vitest suite uses: TEST_DATABASE_URL, else 127.0.0.1:5432), a throwaway database on it, so
 * the service's queries run in PostgreSQL's own processes and two Playwright workers can drive it
 * at once; otherwise the embedded database, one worker. `E2E_DATABASE=embedded` forces the latter.
 * Decided once in the runner (the environment carries the answer to its workers and teardown).
 */
export function e2eDatabase(): { url: string; adminUrl: string; name: string } | null {
  if (process.env.E2E_DATABASE === undefined) {
    const adminUrl = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
    const probe = spawnSync("psql", [adminUrl, "-Atqc", "SELECT 1"], { encoding: "utf8", timeout: 5000 });
    process.env.E2E_DATABASE = probe.status === 0 ? adminUrl : "embedded";
    process.env.E2E_DATABASE_NAME = `bi_e2e_${process.pid}_${Date.now().toString(36)}`;
  }
  if (process.env.E2E_DATABASE === "embedded") return null;
  const adminUrl = process.env.E2E_DATABASE;
  const name = process.env.E2E_DATABASE_NAME!;
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), adminUrl, name };
}
