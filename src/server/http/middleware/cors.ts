import { errorResponse } from "../respond";
import type { HttpResponse, Middleware, RouteDef } from "../types";
import { compileRoutes } from "./route-match";

/** The methods a browser may use on a route open to other origins. */
export const CORS_ALLOWED_METHODS = "GET, HEAD, OPTIONS";
/** Request headers a browser may send beyond the safelisted ones: conditional requests and our correlation id. */
export const CORS_ALLOWED_HEADERS = "Accept, If-None-Match, If-Modified-Since, Cache-Control, X-Correlation-Id";
/** Response headers a script may read beyond the safelisted ones (Cache-Control and Content-Type already are). */
const EXPOSED_HEADERS = "ETag, Vary, X-Correlation-Id";
/** How long a browser may reuse a preflight answer (browsers cap it lower: Chromium at 2 hours). */
const PREFLIGHT_MAX_AGE_SEC = 86_400;

const corsHeaders = { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED_HEADERS };

/**
 * Routes marked `cors` (the DID documents and the status lists: public, anonymous, read by
 * browser verifiers on other origins) are open to every origin: their answers, errors included,
 * carry `Access-Control-Allow-Origin: *` (never with credentials, which these routes do not read),
 * and a CORS preflight (OPTIONS with Access-Control-Request-Method) is answered 204 with the
 * methods and headers they accept. Nothing else changes: other paths, and an OPTIONS that is not a
 * preflight, go on to the route match, which refuses OPTIONS with 405 and the allowed methods.
 */
export function cors(routes: RouteDef[]): Middleware {
  const open = compileRoutes(routes.filter((r) => r.cors));
  return async (state, next) => {
    const hit = open.find((c) => c.regex.test(state.req.path));
    if (!hit) return next();
    if (state.req.method === "OPTIONS" && state.req.headers.has("access-control-request-method")) {
      state.route = hit.def;
      return {
        status: 204,
        headers: {
          ...state.headers,
          ...corsHeaders,
          "access-control-allow-methods": CORS_ALLOWED_METHODS,
          "access-control-allow-headers": CORS_ALLOWED_HEADERS,
          "access-control-max-age": String(PREFLIGHT_MAX_AGE_SEC),
          allow: CORS_ALLOWED_METHODS,
        },
        body: "",
      };
    }
    let res: HttpResponse;
    try {
      res = await next();
    } catch (err) {
      res = errorResponse(state, err);
    }
    Object.assign(res.headers, corsHeaders);
    return res;
  };
}
