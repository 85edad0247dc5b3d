import { metrics } from "../../metrics";
import { errorResponse } from "../respond";
import type { Middleware } from "../types";

/**
 * Counts every answer, errors included, by route template (never the raw path, which would
 * explode cardinality and could carry identifiers). Errors are rendered here so they are counted
 * with the status the caller sees.
 */
export function requestMetrics(): Middleware {
  return async (state, next) => {
    let res;
    try {
      res = await next();
    } catch (err) {
      res = errorResponse(state, err);
    }
    const route = state.route?.path ?? "unmatched";
    const m = metrics();
    m.requests.inc({ method: state.req.method, route, status: String(res.status) });
    m.duration.observe({ method: state.req.method, route }, (performance.now() - state.startedAt) / 1000);
    return res;
  };
}
