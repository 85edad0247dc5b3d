import { rateLimited } from "../../errors";
import { planLimitPerMinute } from "../../plans";
import { hitWindow } from "../../services/rate-limit";
import type { Middleware } from "../types";

/** Per-client-IP backstop above every plan, for authenticated routes (x-ratelimit-*). */
export function ipBackstop(limitPerMinute: number): Middleware {
  return async (state, next) => {
    if (state.route?.auth === "public") return next();
    const hit = await hitWindow(state.db, `ip:${state.clientIp}`, limitPerMinute, 60);
    state.headers["x-ratelimit-limit"] = String(limitPerMinute);
    state.headers["x-ratelimit-remaining"] = String(hit.remaining);
    state.headers["x-ratelimit-reset"] = String(hit.resetSec);
    if (hit.exceeded) throw rateLimited(hit.resetSec, "Too many requests from this address; retry later.");
    return next();
  };
}

/** The organization's plan quota per minute, counted in the database across instances. */
export function planLimit(): Middleware {
  return async (state, next) => {
    const org = state.org;
    if (!org) return next();
    const limit = planLimitPerMinute(org.plan);
    const hit = await hitWindow(state.db, `plan:${org.id}`, limit, 60);
    state.headers["x-ratelimit-plan-limit"] = String(limit);
    state.headers["x-ratelimit-plan-remaining"] = String(hit.remaining);
    if (hit.exceeded) {
      throw rateLimited(hit.resetSec, `The ${org.plan} plan allows ${limit} requests per minute; retry after the window resets.`, {
        "x-ratelimit-plan-reset": String(hit.resetSec),
      });
    }
    return next();
  };
}
