import { isDatabaseReady } from "../../db/client";
import { AppError } from "../../errors";

/** Readiness for load balancers: the database answers and every migration is applied. */
export async function readiness() {
  if (!(await isDatabaseReady())) throw new AppError("NOT_READY", "The database is not reachable or migrations are pending.");
  return { status: "ready" as const };
}

/** GET /v1/whoami and the console's allowlist page: the address allowlists compare. */
export const whoAmI = (caller: { clientIp: string }) => ({ clientIp: caller.clientIp });
