import { spawnSync } from "node:child_process";
import { e2eDatabase } from "./database";

/** Drops the browser tests' PostgreSQL database (made by the web server's command, playwright.config.ts). */
export default function globalTeardown() {
  const db = e2eDatabase();
  if (db) spawnSync("psql", [db.adminUrl, "-Atqc", `DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`]);
}
