import type { Logger } from "pino";
import type { ZodType } from "zod";
import type { ApiKey, Organization } from "@/generated/prisma/client.ts";
import type { Scope } from "@/lib/scopes";
import type { ServiceContext } from "../context";
import type { Db } from "../db/client";
import type { ErrorCode } from "../errors";

/** A request as the pipeline sees it: already read off the socket, body as exact bytes. */
export type HttpRequest = {
  method: string;
  /** Raw path as sent (percent-encoding kept), without the query string. */
  path: string;
  query: URLSearchParams;
  /** The query string exactly as sent, without its "?" ("" when there is none): what a v2 signature covers. */
  rawQuery: string;
  headers: Headers;
  body: Buffer;
  /** The TCP peer address; X-Forwarded-For is only believed from TRUSTED_PROXIES. */
  peerIp: string;
};

export type HttpResponse = {
  status: number;
  headers: Record<string, string>;
  body: string;
};

export type RouteAuth = "public" | { scope: Scope };

export type HandlerInput<B, Q, P> = {
  body: B;
  query: Q;
  params: P;
  /** Present on authenticated routes. */
  ctx: ServiceContext;
  state: PipelineState;
};

/** What a handler may return instead of plain JSON data. */
export type Reply = {
  __reply: true;
  status?: number;
  body?: unknown;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
};

export type RouteDef = {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI-style template, e.g. "/v1/admin/api-keys/{id}". */
  path: string;
  auth: RouteAuth;
  summary: string;
  tag: string;
  body?: ZodType;
  query?: ZodType;
  params?: ZodType;
  response?: ZodType;
  successStatus?: number;
  /** Accepts Idempotency-Key. */
  idempotent?: boolean;
  /**
   * Public idempotent routes: the caller's credential within the request (e.g. the email proof
   * token) that scopes the key, so two callers choosing the same key never see each other's answer.
   */
  // biome-ignore lint/suspicious/noExplicitAny: erased in the route table; route() types it against the route's own body schema
  idempotencyScope?: (body: any) => string;
  /** Answers 404 when BI_ENV=production. */
  sandboxOnly?: boolean;
  /**
   * The route speaks another system's published protocol (a chain node's `/v1/chain` API), in
   * that protocol's shapes: it is served and tested like any route but left out of our OpenAPI
   * document, whose shapes and error envelope it does not follow; the protocol's own reference
   * documents it.
   */
  foreignProtocol?: string;
  /** Error codes this route documents beyond the pipeline's own. */
  errors?: ErrorCode[];
  /** Response media type when not JSON (e.g. the metrics exposition). */
  produces?: string;
  /**
   * Other media types of the same JSON answer, chosen by the request's Accept header (the status
   * lists answer `application/vc` too); the OpenAPI document lists them beside application/json.
   */
  alsoProduces?: string[];
  /**
   * Open to every origin (public, anonymous documents read by browser verifiers: DID documents,
   * status lists): `Access-Control-Allow-Origin: *` and answered preflights (middleware/cors.ts).
   */
  cors?: boolean;
  /** The OpenAPI document's examples of the request body and the JSON answer (see openapi.ts `exampleOf`). */
  examples?: { request?: unknown; response?: unknown };
  // biome-ignore lint/suspicious/noExplicitAny: one table holds routes of every input type; route() checks each handler against its own schemas
  handler: (input: HandlerInput<any, any, any>) => Promise<unknown>;
};

/** Mutable state that the middleware chain fills in, in order. */
export type PipelineState = {
  req: HttpRequest;
  db: Db;
  correlationId: string;
  clientIp: string;
  log: Logger;
  startedAt: number;
  /** Headers every answer carries (rate-limit, correlation id), errors included. */
  headers: Record<string, string>;
  route?: RouteDef;
  params: Record<string, string>;
  org?: Organization;
  apiKey?: ApiKey;
  /** A checked request signature, recorded as used once the request is authorised. */
  signature?: { value: string; expiresAt: Date };
  body?: unknown;
  query?: unknown;
  parsedParams?: unknown;
  /** The Idempotency-Key record this request claimed, if it sent one. */
  idempotencyClaimId?: string;
  /** True once this instance is shutting down: /v1/ready answers 503 so load balancers stop sending. */
  draining?: boolean;
};

export type Next = () => Promise<HttpResponse>;
export type Middleware = (state: PipelineState, next: Next) => Promise<HttpResponse>;
