import { env, parseEnv } from "@/env";
import { forbidden, unauthorized } from "../../errors";
import type { AuthCache } from "../../platform/auth-cache";
import { authenticateApiKey } from "../../services/org";
import type { Middleware } from "../types";

/**
 * Bearer API key: a key of the other environment is refused without a lookup; otherwise the
 * SHA-256 of the key is looked up (in the instance's cache when given: services/auth-cache.ts) and
 * compared in constant time. Revoked or unknown keys are 401.
 */
export function apiKeyAuth(cache?: AuthCache): Middleware {
  return async (state, next) => {
    if (state.route?.auth === "public") return next();
    const header = state.req.headers.get("authorization") ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw unauthorized("missing_key", "A bearer API key is missing: send Authorization: Bearer <API_KEY>.");
    const { key, org } = await authenticateApiKey(state.db, m[1]!, env().BI_ENV, cache);
    state.apiKey = key;
    state.org = org;
    return next();
  };
}

/** 403 before anything is written when the key lacks the route's scope. */
export function requireScope(): Middleware {
  return async (state, next) => {
    const auth = state.route?.auth;
    if (!auth || auth === "public") return next();
    if (!state.apiKey?.scopes.includes(auth.scope)) {
      throw forbidden("missing_scope", `This API key lacks the '${auth.scope}' scope required by this route.`);
    }
    return next();
  };
}

/**
 * BI_AUTH_CACHE=off reads every key from the database on every request (no cache), to rule the
 * cache out or where no session can LISTEN; behind PgBouncer in transaction mode the cache needs
 * DATABASE_DIRECT_URL (src/env.ts refuses the combination without it).
 */
export function authCacheEnabled(source?: Record<string, string | undefined>): boolean {
  return (source ? parseEnv(source) : env()).BI_AUTH_CACHE;
}
