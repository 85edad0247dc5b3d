import { spawnSync } from "node:child_process";
import { e2eDatabase } from "./database";

/** The processes holding the browser tests' port open for listening (iproute2's ss; none found without it). */
function listeners(port: number): number[] {
  const out = spawnSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  return [...new Set([...(out.stdout ?? "").matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])))].filter((pid) => pid !== process.pid);
}

/**
 * Stops the web server, then drops the browser tests' PostgreSQL database (made by the web
 * server's command, playwright.config.ts). Playwright stops the server only after this runs: the
 * service's background jobs would otherwise log the database's disappearance as failures, into a
 * run's output that is read for real failures.
 */
export default async function globalTeardown() {
  const db = e2eDatabase();
  if (!db) return;
  const port = Number(process.env.E2E_PORT ?? 3107);
  for (const pid of listeners(port)) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // gone already
    }
  }
  for (let i = 0; i < 100 && listeners(port).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  spawnSync("psql", [db.adminUrl, "-Atqc", `DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`]);
}
