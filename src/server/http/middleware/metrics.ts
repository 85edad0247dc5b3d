import { accessLogger } from "../../log";
import { metrics } from "../../metrics";
import { errorResponse } from "../respond";
import type { HttpResponse, Middleware } from "../types";

/**
 * Counts and logs every answer, errors included, by route template (never the raw path, which
 * would explode cardinality and can carry personal data such as a member's email). Errors are
 * rendered here so they are counted with the status the caller sees.
 */
export function requestMetrics(): Middleware {
  return async (state, next) => {
    let res: HttpResponse;
    try {
      res = await next();
    } catch (err) {
      res = errorResponse(state, err);
    }
    const route = state.route?.path ?? "unmatched";
    const m = metrics();
    m.requests.inc({ method: state.req.method, route, status: String(res.status) });
    const seconds = (performance.now() - state.startedAt) / 1000;
    m.duration.observe({ method: state.req.method, route }, seconds);
    if (state.org) {
      m.tenantRequests.inc({ org: state.org.id, method: state.req.method, route, status: String(res.status) });
      m.tenantDuration.observe({ org: state.org.id, method: state.req.method, route }, seconds);
    }
    // Fixed fields only, so it goes through the access logger, which skips redaction (log.ts).
    accessLogger().info(
      {
        correlationId: state.correlationId,
        method: state.req.method,
        route,
        status: res.status,
        ms: Math.round(seconds * 1000),
        orgId: state.org?.id,
        clientIp: state.clientIp,
      },
      "request",
    );
    return res;
  };
}
