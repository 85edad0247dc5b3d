import { env } from "@/env";
import type { ServiceContext } from "../context";
import type { Db } from "../db/client";
import { logger } from "../log";
import type { AuthCache } from "../platform/auth-cache";
import { defaultAuthCache } from "../platform/auth-cache-listener";
import { planLimitPerMinute } from "../platform/plans";
import { type BatchedWindows, batchedWindows } from "../platform/rate-limit-batch";
import { apiKeyAuth, authCacheEnabled, requireScope } from "./middleware/api-key";
import { clientIp } from "./middleware/client-ip";
import { correlationId } from "./middleware/correlation-id";
import { cors } from "./middleware/cors";
import { idempotency } from "./middleware/idempotency";
import { ipAllowlist } from "./middleware/ip-allowlist";
import { requestMetrics } from "./middleware/metrics";
import { ipBackstop, planLimit, planQuotaHeaders, rateLimitFactor } from "./middleware/rate-limit";
import { routeMatch } from "./middleware/route-match";
import { requestSigning, spendSignature } from "./middleware/signing";
import { validateInput } from "./middleware/validate";
import { errorResponse, jsonResponse } from "./respond";
import { isReply } from "./route";
import type { HttpRequest, HttpResponse, Middleware, PipelineState, RouteDef } from "./types";

/** Per-client-IP backstop (docs/api/contract-decisions.md §4). */
export const IP_BACKSTOP_PER_MINUTE = 6000;

export function compose(middleware: Middleware[], final: (s: PipelineState) => Promise<HttpResponse>) {
  return (state: PipelineState): Promise<HttpResponse> => {
    const run = (i: number): Promise<HttpResponse> => (i < middleware.length ? middleware[i]!(state, () => run(i + 1)) : final(state));
    return run(0);
  };
}

export function serviceContext(state: PipelineState): ServiceContext {
  return {
    db: state.db,
    org: state.org!,
    actor: { type: "api_key", id: state.apiKey!.id, label: state.apiKey!.name },
    correlationId: state.correlationId,
    clientIp: state.clientIp,
    log: state.log,
    now: () => new Date(),
    idempotencyClaimId: state.idempotencyClaimId,
  };
}

async function invoke(state: PipelineState): Promise<HttpResponse> {
  const route = state.route!;
  const result = await route.handler({
    body: state.body,
    query: state.query,
    params: state.parsedParams,
    ctx: state.org ? serviceContext(state) : (undefined as never),
    state,
  });
  if (isReply(result)) {
    if (result.text !== undefined) {
      return {
        status: result.status ?? 200,
        headers: { ...state.headers, "content-type": result.contentType ?? "text/plain", ...result.headers },
        body: result.text,
      };
    }
    return jsonResponse(state, result.status ?? route.successStatus ?? 200, result.body, result.headers);
  }
  return jsonResponse(state, route.successStatus ?? 200, result);
}

/**
 * The /v1 pipeline, in order: correlation id and error envelope; metrics; client IP; CORS for the
 * routes open to other origins (their preflights are answered here); route;
 * per-IP backstop; API key; IP allowlist; request signature checked; scope; signature spent and
 * plan quota counted; input validation; idempotency; the route's one service call.
 */
export type PipelineOptions = {
  /** The instance's key cache (default: the process's, with its invalidation feed). */
  authCache?: AuthCache;
  /** The instance's in-process rate-limit counters (default: the process's). */
  windows?: BatchedWindows;
  /** Whether the instance is shutting down (readiness answers 503 while in-flight requests finish). */
  draining?: () => boolean;
};

export function createPipeline(routes: RouteDef[], db: Db, opts: PipelineOptions = {}) {
  const e = env();
  const factor = rateLimitFactor();
  const windows = opts.windows ?? batchedWindows();
  const authCache = opts.authCache ?? (authCacheEnabled() ? defaultAuthCache() : undefined);
  const planQuota = (plan: Parameters<typeof planLimitPerMinute>[0]) => planLimitPerMinute(plan) * factor;
  const chain = compose(
    [
      correlationId(),
      requestMetrics(),
      clientIp(
        e.TRUSTED_PROXIES.split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
      cors(routes),
      routeMatch(routes),
      ipBackstop(IP_BACKSTOP_PER_MINUTE * factor, windows),
      apiKeyAuth(authCache),
      ipAllowlist(),
      requestSigning(),
      planQuotaHeaders(windows, planQuota),
      requireScope(),
      spendSignature(),
      planLimit(windows, planQuota),
      validateInput(),
      idempotency(),
    ],
    invoke,
  );
  return async (req: HttpRequest): Promise<HttpResponse> => {
    const state: PipelineState = {
      req,
      db,
      correlationId: "",
      clientIp: req.peerIp,
      log: logger(),
      startedAt: performance.now(),
      headers: {},
      params: {},
      draining: opts.draining?.() ?? false,
    };
    try {
      return await chain(state);
    } catch (err) {
      return errorResponse(state, err);
    }
  };
}
