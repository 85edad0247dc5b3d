import { isDatabaseReady } from "../../db/client";
import { AppError } from "../../errors";

/**
 * Readiness for load balancers: the database answers and every migration is applied, and the
 * instance is not shutting down (it keeps answering requests already sent to it meanwhile).
 */
export async function readiness(instance: { draining: boolean } = { draining: false }) {
  if (instance.draining) throw new AppError("NOT_READY", "The instance is shutting down.", { reason: "draining" });
  if (!(await isDatabaseReady())) throw new AppError("NOT_READY", "The database is not reachable or migrations are pending.");
  return { status: "ready" as const };
}

/** GET /v1/whoami and the console's allowlist page: the address allowlists compare. */
export const whoAmI = (caller: { clientIp: string }) => ({ clientIp: caller.clientIp });
