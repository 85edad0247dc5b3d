import { AppError, validationError } from "../../errors";
import { decodeUtf8, REFUSED_TEXT_MESSAGE, refusedTextAt } from "../../platform/input-text";
import type { Middleware } from "../types";

const refuse = (where: string, path: string, message: string) =>
  new AppError("VALIDATION_ERROR", `The request ${where} is not valid.`, { issues: [{ path, message }] });

/** Throws 400 when `value` holds text PostgreSQL would refuse (platform/input-text.ts). */
function acceptText(value: unknown, where: string) {
  const at = refusedTextAt(value, where);
  if (at) throw refuse(where, at, REFUSED_TEXT_MESSAGE);
}

/**
 * Parses the JSON body, query and path parameters with the route's zod schemas. Malformed JSON,
 * a body that is not UTF-8, text PostgreSQL refuses and schema failures are 400 VALIDATION_ERROR
 * naming the fields, never echoing the values.
 */
export function validateInput(): Middleware {
  return async (state, next) => {
    const route = state.route!;
    acceptText(state.params, "path");
    if (route.params) {
      const r = route.params.safeParse(state.params);
      if (!r.success) throw validationError(r.error.issues, "path");
      state.parsedParams = r.data;
    } else {
      state.parsedParams = state.params;
    }
    const query = Object.fromEntries(state.req.query);
    acceptText(query, "query");
    if (route.query) {
      const r = route.query.safeParse(query);
      if (!r.success) throw validationError(r.error.issues, "query");
      state.query = r.data;
    }
    if (route.body) {
      let json: unknown = {};
      const text = decodeUtf8(state.req.body);
      if (text === null) throw refuse("body", "body", "not UTF-8");
      if (text.trim().length) {
        try {
          json = JSON.parse(text);
        } catch {
          throw new AppError("VALIDATION_ERROR", "The request body is not valid JSON.", {
            issues: [{ path: "body", message: "malformed JSON" }],
          });
        }
      }
      acceptText(json, "body");
      const r = route.body.safeParse(json);
      if (!r.success) throw validationError(r.error.issues, "body");
      state.body = r.data;
    }
    return next();
  };
}
