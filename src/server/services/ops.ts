import { isDatabaseReady } from "../db/client";
import { AppError } from "../errors";

/** Readiness for load balancers: the database answers and every migration is applied. */
export async function readiness() {
  if (!(await isDatabaseReady())) throw new AppError("NOT_READY", "The database is not reachable or migrations are pending.");
  return { status: "ready" as const };
}
