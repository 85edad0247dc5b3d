import type { ZodType, z } from "zod";
import type { ErrorCode } from "../errors";
import type { HandlerInput, Reply, RouteAuth, RouteDef } from "./types";

type Infer<T> = T extends ZodType ? z.output<T> : undefined;
type InputOf<T> = T extends ZodType ? z.input<T> : never;

/**
 * Declares one /v1 route: who may call it, the zod schemas of its input and output, and the one
 * service call it makes. The same declaration drives validation, the OpenAPI document and the
 * security test suite.
 */
export function route<
  B extends ZodType | undefined = undefined,
  Q extends ZodType | undefined = undefined,
  P extends ZodType | undefined = undefined,
  R extends ZodType | undefined = undefined,
>(def: {
  method: RouteDef["method"];
  path: string;
  auth: RouteAuth;
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  response?: R;
  successStatus?: number;
  idempotent?: boolean;
  idempotencyScope?: (body: Infer<B>) => string;
  sandboxOnly?: boolean;
  foreignProtocol?: string;
  errors?: ErrorCode[];
  produces?: string;
  alsoProduces?: string[];
  cors?: boolean;
  /** Shown in the OpenAPI document; typed by the route's schemas, and parsed by them in tests/openapi.test.ts. */
  examples?: { request?: InputOf<B>; response?: InputOf<R> };
  handler: (input: HandlerInput<Infer<B>, Infer<Q>, Infer<P>>) => Promise<unknown>;
}): RouteDef {
  return def as RouteDef;
}

export function reply(status: number, body?: unknown, headers?: Record<string, string>): Reply {
  return { __reply: true, status, body, headers };
}

export function replyText(text: string, contentType: string, status = 200): Reply {
  return { __reply: true, status, text, contentType };
}

export const isReply = (v: unknown): v is Reply => typeof v === "object" && v !== null && (v as Reply).__reply === true;
