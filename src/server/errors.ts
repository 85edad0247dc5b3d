/**
 * The one table of error codes: HTTP status for /v1, tRPC code for the console.
 * Services throw AppError; both doors map it here and nowhere else.
 */
export const ERRORS = {
  VALIDATION_ERROR: { status: 400, trpc: "BAD_REQUEST", message: "The request is not valid." },
  INVALID_CODE: { status: 400, trpc: "BAD_REQUEST", message: "The code is incorrect or has expired." },
  INVALID_SIGNATURE: { status: 400, trpc: "BAD_REQUEST", message: "The signature does not verify." },
  INVALID_COUNTRY_CODE: { status: 400, trpc: "BAD_REQUEST", message: "A country code is not a valid ISO 3166-1 alpha-2 code." },
  PAYMENT_NOT_VERIFIED: { status: 400, trpc: "BAD_REQUEST", message: "The payment could not be verified." },
  UNAUTHORIZED: { status: 401, trpc: "UNAUTHORIZED", message: "Authentication failed." },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN", message: "This action is not allowed." },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Not found." },
  METHOD_NOT_ALLOWED: { status: 405, trpc: "METHOD_NOT_SUPPORTED", message: "Method not allowed on this path." },
  CONFLICT: { status: 409, trpc: "CONFLICT", message: "The request conflicts with the current state." },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE", message: "The request body is too large." },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    trpc: "UNPROCESSABLE_CONTENT",
    message: "This Idempotency-Key was used with a different request body.",
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    trpc: "BAD_REQUEST",
    message: "The request line and headers are too large; send long values in the body.",
  },
  TRANSFER_REVERSIBLE: { status: 425, trpc: "PRECONDITION_FAILED", message: "The transfer is still reversible; retry shortly." },
  RATE_LIMITED: { status: 429, trpc: "TOO_MANY_REQUESTS", message: "Too many requests." },
  INTERNAL: { status: 500, trpc: "INTERNAL_SERVER_ERROR", message: "Something went wrong on our side." },
  PROVIDER_FAILURE: { status: 502, trpc: "BAD_GATEWAY", message: "The provider rejected the request." },
  PROVIDER_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE", message: "The provider is unavailable; retry with backoff." },
  NOT_READY: { status: 503, trpc: "SERVICE_UNAVAILABLE", message: "The service is not ready." },
} as const;

export type ErrorCode = keyof typeof ERRORS;
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;
  /** Extra response headers (Retry-After and the like). */
  readonly headers?: Record<string, string>;
  /**
   * The operation may still complete in the background (recovery settles it), so an
   * Idempotency-Key stays claimed instead of being freed for a retry that would run it twice.
   */
  outcomePending?: boolean;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails, headers?: Record<string, string>) {
    super(message ?? ERRORS[code].message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** Shorthands for the errors services raise most. */
export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} was not found.`);
export const conflict = (reason: string, message: string, extra?: ErrorDetails) => new AppError("CONFLICT", message, { reason, ...extra });
export const forbidden = (reason: string, message: string) => new AppError("FORBIDDEN", message, { reason });
export const unauthorized = (reason: string, message: string) => new AppError("UNAUTHORIZED", message, { reason });
export const rateLimited = (retryAfterSec: number, message = "Too many requests; retry later.", extraHeaders?: Record<string, string>) =>
  new AppError("RATE_LIMITED", message, { retryAfterSec }, { "Retry-After": String(retryAfterSec), ...extraHeaders });

/** The JSON envelope of docs/api/contract-decisions.md §2. */
export function errorEnvelope(err: AppError, correlationId: string) {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details ? { details: err.details } : {}),
      correlationId,
    },
  };
}

/** Maps zod issues to `details.issues` (field paths and messages; never the rejected values). */
export function validationError(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, where = "body") {
  return new AppError("VALIDATION_ERROR", `The request ${where} is not valid.`, {
    issues: issues.map((i) => ({ path: [where, ...i.path.map(String)].join("."), message: i.message })),
  });
}
