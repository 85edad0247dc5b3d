import { env } from "@/env";
import { AppError } from "../../errors";
import type { Middleware, RouteDef } from "../types";

type Compiled = { def: RouteDef; regex: RegExp; names: string[] };

export function compileRoutes(routes: RouteDef[]): Compiled[] {
  return routes.map((def) => {
    const names: string[] = [];
    const pattern = def.path
      .split("/")
      .map((seg) => {
        const m = /^\{(\w+)\}$/.exec(seg);
        if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(m[1]!);
        return "([^/]+)";
      })
      .join("/");
    return { def, regex: new RegExp(`^${pattern}/?$`), names };
  });
}

/** Finds the route for method + path; unknown paths are 404 and known paths with another method 405, both in the envelope. */
export function routeMatch(routes: RouteDef[]): Middleware {
  // Static segments win over parameters ("/v1/accounts/name-available" before "/v1/accounts/{did}").
  const compiled = compileRoutes(routes).sort((a, b) => a.names.length - b.names.length);
  return async (state, next) => {
    const { method, path } = state.req;
    const candidates = compiled.filter((c) => c.regex.test(path));
    const hit = candidates.find((c) => c.def.method === method || (method === "HEAD" && c.def.method === "GET"));
    if (!hit) {
      if (candidates.length) {
        throw new AppError("METHOD_NOT_ALLOWED", `${method} is not supported on this path.`, {
          allowed: [...new Set(candidates.map((c) => c.def.method))],
        });
      }
      throw new AppError("NOT_FOUND", "No such route.", { path });
    }
    if (hit.def.sandboxOnly && env().BI_ENV === "production") throw new AppError("NOT_FOUND", "No such route.", { path });
    const values = hit.regex.exec(path)!.slice(1);
    try {
      state.params = Object.fromEntries(hit.names.map((n, i) => [n, decodeURIComponent(values[i]!)]));
    } catch {
      throw new AppError("VALIDATION_ERROR", "The path is not valid percent-encoding.");
    }
    state.route = hit.def;
    return next();
  };
}
