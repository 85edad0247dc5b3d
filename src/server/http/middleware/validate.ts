import { AppError, validationError } from "../../errors";
import type { Middleware } from "../types";

/**
 * Parses the JSON body, query and path parameters with the route's zod schemas. Malformed JSON and
 * schema failures are 400 VALIDATION_ERROR naming the fields, never echoing the values.
 */
export function validateInput(): Middleware {
  return async (state, next) => {
    const route = state.route!;
    if (route.params) {
      const r = route.params.safeParse(state.params);
      if (!r.success) throw validationError(r.error.issues, "path");
      state.parsedParams = r.data;
    } else {
      state.parsedParams = state.params;
    }
    if (route.query) {
      const r = route.query.safeParse(Object.fromEntries(state.req.query));
      if (!r.success) throw validationError(r.error.issues, "query");
      state.query = r.data;
    }
    if (route.body) {
      let json: unknown = {};
      const text = state.req.body.toString("utf8");
      if (text.trim().length) {
        try {
          json = JSON.parse(text);
        } catch {
          throw new AppError("VALIDATION_ERROR", "The request body is not valid JSON.", {
            issues: [{ path: "body", message: "malformed JSON" }],
          });
        }
      }
      const r = route.body.safeParse(json);
      if (!r.success) throw validationError(r.error.issues, "body");
      state.body = r.data;
    }
    return next();
  };
}
