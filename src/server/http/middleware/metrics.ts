import { metrics } from "../../metrics";
import type { Middleware } from "../types";

/** Counts every answer by route template (never the raw path, which would explode cardinality). */
export function requestMetrics(): Middleware {
  return async (state, next) => {
    const res = await next();
    const route = state.route?.path ?? "unmatched";
    const m = metrics();
    m.requests.inc({ method: state.req.method, route, status: String(res.status) });
    m.duration.observe({ method: state.req.method, route }, (performance.now() - state.startedAt) / 1000);
    return res;
  };
}
