import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { atLeast, type Role } from "@/lib/roles";
import type { ServiceContext } from "../context";
import { ERRORS, isAppError } from "../errors";
import { REFUSED_TEXT_MESSAGE, refusedTextAt } from "../platform/input-text";

/**
 * The console's door. Its context is the same ServiceContext the /v1 pipeline builds, with the
 * signed-in member as actor; procedures parse with the shared zod schemas and call one service
 * function, exactly like a /v1 route.
 */
export type ConsoleContext = { svc: ServiceContext | null };

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
      if (cause instanceof ZodError) {
        return { ...shape, message: cause.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ") };
      }
      // Anything unexpected answers like /v1's 500: nothing of the failure reaches the browser.
      if (error.code === "INTERNAL_SERVER_ERROR")
        return { ...shape, message: ERRORS.INTERNAL.message, data: { ...shape.data, stack: undefined } };
      return shape;
    },
  });

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
    .use(acceptText);
}
