import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { AppError, errorEnvelope, isAppError } from "../errors";
import { logger } from "../log";
import { clientIpFrom } from "./client-ip";

const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/**
 * A sign-in or invitation step beside next-auth's routes: JSON only (a cross-site form cannot send
 * it without a CORS preflight, which this never grants), the input parsed with `schema`, errors in
 * the /v1 envelope with Retry-After on a 429.
 */
export function jsonRoute<S extends z.ZodType>(schema: S, run: (input: z.output<S>, clientIp: string) => Promise<unknown>) {
  return async (req: Request) => {
    const correlationId = randomUUID();
    const fail = (err: AppError) => json(errorEnvelope(err, correlationId), err.status, err.headers);
    if (!req.headers.get("content-type")?.startsWith("application/json")) {
      return json(errorEnvelope(new AppError("VALIDATION_ERROR", "Send JSON."), correlationId), 415);
    }
    const parsed = schema.safeParse(await req.json().catch(() => null));
    if (!parsed.success) return fail(new AppError("VALIDATION_ERROR", "Fill in every field."));
    try {
      return json(await run(parsed.data, clientIpFrom(req.headers)), 200);
    } catch (err) {
      if (isAppError(err)) return fail(err);
      logger().error({ err, correlationId }, "console auth step failed");
      return fail(new AppError("INTERNAL"));
    }
  };
}
