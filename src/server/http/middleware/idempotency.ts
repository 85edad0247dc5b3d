import { sha256Hex } from "../../crypto/hash";
import { AppError, conflict, isAppError } from "../../errors";
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from "../../platform/idempotency";
import type { HttpResponse, Middleware } from "../types";

/**
 * Idempotency-Key on the routes that accept it: the first request with a key runs; a retry with
 * the same body within 24 hours replays the stored answer; another body is 422; a retry while the
 * first is still running is 409. The claim is a unique row, so concurrent duplicates never run twice.
 */
export function idempotency(): Middleware {
  return async (state, next) => {
    const key = state.req.headers.get("idempotency-key");
    if (!state.route?.idempotent || key === null) return next();
    if (key.length < 1 || key.length > 255) {
      throw new AppError("VALIDATION_ERROR", "Idempotency-Key must be 1 to 255 characters.", {
        issues: [{ path: "header.Idempotency-Key", message: "must be 1 to 255 characters" }],
      });
    }
    // Public routes have no organization: the key is scoped by the route and by the caller's own
    // credential in the body (a hash of it), so equal keys of two callers never collide.
    const credential = state.route.idempotencyScope?.(state.body);
    const scope = state.org?.id ?? `public:${state.route.path}${credential ? `:${sha256Hex(credential)}` : ""}`;
    const requestHash = sha256Hex(
      `${state.req.method} ${state.route.path} ${JSON.stringify(state.params)}\n${state.req.body.toString("utf8")}`,
    );
    const claim = await claimIdempotencyKey(state.db, { scope, orgId: state.org?.id ?? null, key, route: state.route.path, requestHash });
    if (claim.kind === "mismatch") throw new AppError("IDEMPOTENCY_KEY_REUSED");
    if (claim.kind === "in_progress") {
      throw conflict("idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry shortly.");
    }
    if (claim.kind === "replay") {
      return {
        status: claim.status,
        headers: { ...state.headers, "content-type": "application/json; charset=utf-8", "idempotent-replayed": "true" },
        body: claim.body,
      };
    }
    state.idempotencyClaimId = claim.id;
    let res: HttpResponse;
    try {
      res = await next();
    } catch (err) {
      // Nothing was done (services roll back on error), so the key is free for a corrected retry;
      // unless the outcome is still pending, which recovery settles and then answers under this key.
      if (!(isAppError(err) && err.outcomePending)) await releaseIdempotencyKey(state.db, claim.id);
      throw err;
    }
    if (res.status >= 500) await releaseIdempotencyKey(state.db, claim.id);
    else await completeIdempotencyKey(state.db, claim.id, res.status, res.body);
    return res;
  };
}
