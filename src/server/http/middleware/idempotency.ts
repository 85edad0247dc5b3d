import { sha256Hex } from "../../crypto/hash";
import { AppError, conflict } from "../../errors";
import { runIdempotent } from "../../platform/idempotency";
import type { Middleware } from "../types";

/**
 * Idempotency-Key on the routes that accept it: the first request with a key runs; a retry with
 * the same body within 24 hours replays the stored answer; another body is 422; a retry while the
 * first is still running (or its outcome is pending) is 409. The protocol is the platform's
 * runner, which the console's door calls too; this door renders its outcomes as HTTP.
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
    const outcome = await runIdempotent(
      state.db,
      { scope, orgId: state.org?.id ?? null, key, route: state.route.path, requestHash },
      (claimId) => {
        state.idempotencyClaimId = claimId;
        return next();
      },
      // The answer is kept as sent (status and bytes); a 5xx frees the key like a thrown failure.
      { store: (res) => (res.status >= 500 ? null : { kind: "response", status: res.status, body: res.body }) },
    );
    if (outcome.kind === "ran") return outcome.value;
    if (outcome.kind === "mismatch") throw new AppError("IDEMPOTENCY_KEY_REUSED");
    if (outcome.kind === "in_progress") {
      throw conflict("idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry shortly.");
    }
    // A stored value (an operation completed by recovery) is answered as the route answers its result.
    const { answer } = outcome;
    return {
      status: answer.kind === "response" ? answer.status : (state.route.successStatus ?? 200),
      headers: { ...state.headers, "content-type": "application/json; charset=utf-8", "idempotent-replayed": "true" },
      body: answer.kind === "response" ? answer.body : JSON.stringify(answer.value),
    };
  };
}
