import { randomUUID } from "node:crypto";
import { requestLogger } from "../../log";
import { errorResponse } from "../respond";
import type { HttpResponse, Middleware } from "../types";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Outermost middleware: echoes a well-formed X-Correlation-Id or generates one, puts it on every
 * answer, and turns every thrown error into the error envelope (so nothing below needs try/catch).
 */
export function correlationId(): Middleware {
  return async (state, next) => {
    const given = state.req.headers.get("x-correlation-id");
    state.correlationId = given && SAFE_ID.test(given) ? given : randomUUID();
    state.log = requestLogger(state.correlationId);
    state.headers["x-correlation-id"] = state.correlationId;
    let res: HttpResponse;
    try {
      res = await next();
    } catch (err) {
      res = errorResponse(state, err);
    }
    res.headers["x-correlation-id"] = state.correlationId;
    return res;
  };
}
