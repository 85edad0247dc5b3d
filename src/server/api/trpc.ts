import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { atLeast, type Role } from "@/lib/roles";
import type { ServiceContext } from "../context";
import { sha256Hex } from "../crypto/hash";
import { AppError, conflict, ERRORS, isAppError } from "../errors";
import { runIdempotent } from "../platform/idempotency";
import { REFUSED_TEXT_MESSAGE, refusedTextAt } from "../platform/input-text";

/**
 * The console's door. Its context is the same ServiceContext the /v1 pipeline builds, with the
 * signed-in member as actor; procedures parse with the shared zod schemas and call one service
 * function, exactly like a /v1 route.
 */
export type ConsoleContext = {
  svc: ServiceContext | null;
  /** The `Idempotency-Key` header of the request: one per submission of a console form. */
  idempotencyKey?: string | null;
};

/** The header the console's tRPC client sends with each mutation (see src/trpc/react.tsx). */
export const IDEMPOTENCY_HEADER = "idempotency-key";

/** Each procedure records its weakest admitted role, so tests can walk every procedure and check it. */
export type ConsoleMeta = { minRole: Role };

const t = initTRPC
  .context<ConsoleContext>()
  .meta<ConsoleMeta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      const cause = error.cause;
      if (isAppError(cause)) return { ...shape, data: { ...shape.data, appCode: cause.code, details: cause.details ?? null } };
      // Input errors: one readable line per field, for the page to show as is.
      // Input errors: one readable line per field for any caller, plus the issues themselves (path,
      // code and limits, never the rejected value) for the console to word per field.
      if (cause instanceof ZodError) {
        return {
          ...shape,
          message: cause.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; "),
          data: { ...shape.data, issues: cause.issues.map(issueData) },
        };
      }
      // Anything unexpected answers like /v1's 500: nothing of the failure reaches the browser.
      if (error.code === "INTERNAL_SERVER_ERROR")
        return { ...shape, message: ERRORS.INTERNAL.message, data: { ...shape.data, stack: undefined } };
      return shape;
    },
  });

/** What the console needs of a zod issue to word it: where, which rule, and the rule's limits. */
function issueData(issue: ZodError["issues"][number]) {
  const i = issue as unknown as Record<string, unknown>;
  const pick = (k: string) => (typeof i[k] === "string" || typeof i[k] === "number" ? { [k]: i[k] } : {});
  return {
    path: issue.path.map(String),
    code: issue.code,
    message: issue.message,
    ...pick("origin"),
    ...pick("format"),
    ...pick("expected"),
    ...(typeof i.minimum === "number" || typeof i.minimum === "bigint" ? { minimum: Number(i.minimum) } : {}),
    ...(typeof i.maximum === "number" || typeof i.maximum === "bigint" ? { maximum: Number(i.maximum) } : {}),
  };
}

/** AppError -> TRPCError through the one table in errors.ts; anything else is an internal error with no detail. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isAppError(result.error.cause)) {
    const err = result.error.cause;
    throw new TRPCError({ code: ERRORS[err.code].trpc as TRPCError["code"], message: err.message, cause: err });
  }
  return result;
});

/** Text PostgreSQL would refuse (NUL, unpaired surrogates) is a bad request, as on /v1. */
const acceptText = t.middleware(async ({ getRawInput, next }) => {
  const at = refusedTextAt(await getRawInput(), "input");
  if (at) throw new TRPCError({ code: "BAD_REQUEST", message: `${at}: ${REFUSED_TEXT_MESSAGE}` });
  return next();
});

/**
 * A mutation sent with an Idempotency-Key runs once per key: a repeat with the same member,
 * procedure and input replays the first answer; another procedure or input under the same key is
 * refused (422); a repeat while the first is still running, or while its outcome is pending, is
 * 409 `idempotency_in_progress`. Keys live in the same store as /v1's, scoped to the organization
 * and the member, and follow the same runner (platform/idempotency.ts). A failed call releases
 * its key (services roll back), so a corrected retry may reuse it; without a key a mutation runs
 * as before.
 */
const idempotentMutation = t.middleware(async ({ ctx, type, path, getRawInput, next }) => {
  const key = ctx.idempotencyKey;
  const svc = ctx.svc;
  if (type !== "mutation" || key === undefined || key === null || svc?.actor.type !== "member") return next();
  if (key.length < 1 || key.length > 255) {
    throw new AppError("VALIDATION_ERROR", "The Idempotency-Key header must be 1 to 255 characters.", {
      issues: [{ path: "header.Idempotency-Key", message: "must be 1 to 255 characters" }],
    });
  }
  const route = `console:${path}`;
  const requestHash = sha256Hex(`${route}\n${JSON.stringify((await getRawInput()) ?? null)}`);
  const scope = `console:${svc.org.id}:${svc.actor.email}`;
  const outcome = await runIdempotent(
    svc.db,
    { scope, orgId: svc.org.id, key, route, requestHash },
    async (claimId) => {
      // The procedure sees the claim as a /v1 handler does, so an operation whose outcome is
      // pending can have recovery answer the key.
      // The same context object, not a copy: what the sign-in attached to it (how the session was
      // opened, console-auth-sessions.ts) is keyed by it, and four-eyes and credential changes read it.
      const result = await next({ ctx: { svc: Object.assign(svc, { idempotencyClaimId: claimId }) } });
      // A failure is thrown as tRPC carries it, so the runner frees the key (or keeps it, pending).
      if (!result.ok) throw result.error;
      return result;
    },
    { store: (result) => ({ kind: "value", value: result.data }), now: svc.now() },
  );
  if (outcome.kind === "ran") return outcome.value;
  if (outcome.kind === "mismatch") {
    throw new AppError("IDEMPOTENCY_KEY_REUSED", "This submission was already sent with other values; send the form again.");
  }
  if (outcome.kind === "in_progress") {
    throw conflict("idempotency_in_progress", "This submission is still being processed; wait a moment and try again.");
  }
  // Keys answered before values were stored hold the superjson text of the answer.
  const { answer } = outcome;
  const data = answer.kind === "value" ? answer.value : superjson.parse(answer.body);
  // tRPC offers a middleware no public way to answer without calling next(); this is the shape
  // its own resolver step returns, so the replay travels exactly like a first answer.
  return { ok: true as const, data, marker: "middlewareMarker" as never, ctx };
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** A procedure for members holding at least `minRole`; the service sees the member as actor. */
export function consoleProcedure(minRole: Role) {
  return t.procedure
    .meta({ minRole })
    .use(mapErrors)
    .use(({ ctx, next }) => {
      const svc = ctx.svc;
      if (svc?.actor.type !== "member") throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to the console." });
      if (!atLeast(svc.actor.role, minRole)) {
        throw new TRPCError({ code: "FORBIDDEN", message: `This needs the ${minRole} role or higher.` });
      }
      return next({ ctx: { svc } });
    })
    .use(acceptText)
    .use(idempotentMutation);
}
