import { forbidden } from "../../errors";
import { compileCidrs } from "../../net/cidr";
import type { Middleware } from "../types";

const cache = new Map<string, ReturnType<typeof compileCidrs>>();

/** Rules compiled once per distinct list (lists change rarely; the cache is bounded). */
function compiled(cidrs: string[]) {
  const k = cidrs.join(",");
  let c = cache.get(k);
  if (!c) {
    if (cache.size > 1000) cache.clear();
    c = compileCidrs(cidrs);
    cache.set(k, c);
  }
  return c;
}

/**
 * Fails closed: once an organization has an allowlist, every request from outside it is 403,
 * including the PUT that would change the list.
 */
export function ipAllowlist(): Middleware {
  return async (state, next) => {
    const list = state.org?.ipAllowlist ?? [];
    if (list.length && !compiled(list).contains(state.clientIp)) {
      throw forbidden("ip_not_allowed", `Requests from ${state.clientIp} are not on this organization's IP allowlist.`);
    }
    return next();
  };
}
