import { type ZodType, z } from "zod";
import { env } from "@/env";
import { ERRORS, type ErrorCode } from "../errors";
import type { RouteDef } from "./types";

/** The API version of the machine-readable contract (interface spec, Versioning). */
export const API_VERSION = "0.2.0";

type Json = Record<string, unknown>;

/** docs/api/contract-decisions.md §2, as a zod schema so tests can check real answers against what is documented. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]),
      message: z.string().describe("A human sentence; never secrets or personal data."),
      details: z
        .looseObject({
          reason: z.string().optional().describe("Machine-readable cause for UNAUTHORIZED, FORBIDDEN and CONFLICT."),
          issues: z
            .array(z.object({ path: z.string(), message: z.string() }))
            .optional()
            .describe("VALIDATION_ERROR: field paths and messages."),
          retryAfterSec: z.int().min(0).optional().describe("RATE_LIMITED and PROVIDER_UNAVAILABLE: seconds to wait."),
        })
        .optional(),
      correlationId: z.string().describe("Also in the X-Correlation-Id header; quote it when reporting a problem."),
    }),
  })
  .meta({ id: "ErrorEnvelope" });

export const pathParamNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

export const scopeOf = (r: RouteDef) => (r.auth === "public" ? "public" : r.auth.scope);

/** Every error code the pipeline itself, or the route, can answer with. */
export function errorCodesFor(r: RouteDef): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  const hasParams = pathParamNames(r.path).length > 0;
  if (r.body || r.query || r.params || hasParams || r.idempotent) codes.add("VALIDATION_ERROR");
  if (r.auth !== "public") for (const c of ["UNAUTHORIZED", "FORBIDDEN", "RATE_LIMITED"] as const) codes.add(c);
  if (hasParams || r.sandboxOnly) codes.add("NOT_FOUND");
  if (r.idempotent) for (const c of ["CONFLICT", "IDEMPOTENCY_KEY_REUSED"] as const) codes.add(c);
  if (r.body) codes.add("PAYLOAD_TOO_LARGE");
  for (const c of r.errors ?? []) codes.add(c);
  codes.add("INTERNAL");
  return [...codes];
}

/** Moves `$defs` of one converted schema into components.schemas, keeping names stable and unique. */
function hoist(schema: Json, components: Record<string, Json>, io: "input" | "output"): Json {
  const defs = (schema.$defs ?? {}) as Record<string, Json>;
  delete schema.$defs;
  delete schema.$schema;
  const renamed: Record<string, string> = {};
  for (const name of Object.keys(defs)) {
    const candidates = [name, `${name}${io === "output" ? "Output" : "Input"}`];
    let target = candidates.find((c) => !components[c] || JSON.stringify(components[c]) === JSON.stringify(defs[name]));
    for (let i = 2; !target; i++) if (!components[`${name}${i}`]) target = `${name}${i}`;
    renamed[name] = target;
  }
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) =>
          k === "$ref" && typeof x === "string" && x.startsWith("#/$defs/")
            ? [k, `#/components/schemas/${renamed[x.slice(8)] ?? x.slice(8)}`]
            : [k, rewrite(x)],
        ),
      );
    }
    return v;
  };
  for (const [name, def] of Object.entries(defs)) components[renamed[name]!] = rewrite(def) as Json;
  return rewrite(schema) as Json;
}

function toSchema(schema: ZodType, io: "input" | "output", components: Record<string, Json>): Json {
  const raw = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Json;
  return hoist(raw, components, io);
}

const ERROR_REF = { $ref: "#/components/schemas/ErrorEnvelope" };
const h = (name: string) => ({ $ref: `#/components/headers/${name}` });
const p = (name: string) => ({ $ref: `#/components/parameters/${name}` });

function commonHeaders(r: RouteDef): Json {
  const out: Json = { "X-Correlation-Id": h("X-Correlation-Id") };
  if (r.auth !== "public") {
    for (const n of [
      "x-ratelimit-plan-limit",
      "x-ratelimit-plan-remaining",
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
    ])
      out[n] = h(n);
  }
  return out;
}

function errorResponses(r: RouteDef): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesFor(r)) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: Json = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers: Json = commonHeaders(r);
    if (codes.includes("RATE_LIMITED"))
      Object.assign(headers, { "Retry-After": h("Retry-After"), "x-ratelimit-plan-reset": h("x-ratelimit-plan-reset") });
    out[String(status)] = {
      description: codes.map((c) => `${c}: ${ERRORS[c].message}`).join(" "),
      "x-error-codes": codes,
      headers,
      content: { "application/json": { schema: ERROR_REF } },
    };
  }
  return out;
}

/** Parameters are listed property by property, so a root `$ref` (a schema with a meta id) is followed. */
function objectSchema(schema: ZodType, components: Record<string, Json>): Json {
  const s = toSchema(schema, "input", components);
  const ref = typeof s.$ref === "string" ? s.$ref.replace("#/components/schemas/", "") : undefined;
  return ref && components[ref] ? components[ref] : s;
}

function parameters(r: RouteDef, components: Record<string, Json>): Json[] {
  const out: Json[] = [];
  const params = r.params ? objectSchema(r.params, components) : undefined;
  for (const name of pathParamNames(r.path)) {
    const schema = ((params?.properties as Record<string, Json> | undefined)?.[name] ?? { type: "string" }) as Json;
    out.push({ name, in: "path", required: true, schema, description: "URL-encoded." });
  }
  if (r.query) {
    const q = objectSchema(r.query, components);
    const required = (q.required as string[] | undefined) ?? [];
    for (const [name, schema] of Object.entries((q.properties ?? {}) as Record<string, Json>)) {
      out.push({
        name,
        in: "query",
        required: required.includes(name),
        schema,
        ...(schema.description ? { description: schema.description } : {}),
      });
    }
  }
  out.push(p("CorrelationId"));
  if (r.idempotent) out.push(p("IdempotencyKey"));
  if (r.auth !== "public") out.push(p("SignatureTimestamp"), p("Signature"), p("SignatureVersion"));
  return out;
}

export const operationId = (r: RouteDef) =>
  r.method.toLowerCase() +
  r.path
    .split(/[/.\-_]/)
    .filter(Boolean)
    .map((s) => (/^\{\w+\}$/.test(s) ? `By${s[1]!.toUpperCase()}${s.slice(2, -1)}` : s[0]!.toUpperCase() + s.slice(1)))
    .join("");

function operation(r: RouteDef, components: Record<string, Json>): Json {
  const success: Json = { description: r.summary, headers: commonHeaders(r) };
  if (r.produces) success.content = { [r.produces]: { schema: { type: "string" } } };
  else if (r.response) success.content = { "application/json": { schema: toSchema(r.response, "output", components) } };
  const op: Json = {
    operationId: operationId(r),
    summary: r.summary,
    tags: [r.tag],
    "x-scope": scopeOf(r),
    security: r.auth === "public" ? [] : [{ bearer: [] }],
    parameters: parameters(r, components),
    responses: { [String(r.successStatus ?? 200)]: success, ...errorResponses(r) },
  };
  if (r.idempotent) op["x-idempotent"] = true;
  if (r.sandboxOnly) op["x-sandbox-only"] = true;
  if (r.body) {
    op.requestBody = {
      required: !r.body.safeParse({}).success,
      content: { "application/json": { schema: toSchema(r.body, "input", components) } },
    };
  }
  return op;
}

const header = (description: string, schema: Json = { type: "integer", minimum: 0 }) => ({ description, schema });

function staticComponents(): Json {
  return {
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer",
        description: "API key: `bi_test_…` on sandbox, `bi_…` on production. Server-side use only.",
      },
    },
    parameters: {
      CorrelationId: {
        name: "X-Correlation-Id",
        in: "header",
        required: false,
        schema: { type: "string", pattern: "^[A-Za-z0-9._:\\-]{1,128}$" },
        description: "Echoed and logged; generated when omitted.",
      },
      IdempotencyKey: {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        schema: { type: "string", minLength: 1, maxLength: 255 },
        description:
          "Scoped to the organization; a retry within 24 hours replays the first answer, another body is 422, a retry while the first runs is 409.",
      },
      SignatureTimestamp: {
        name: "X-BI-Timestamp",
        in: "header",
        required: false,
        schema: { type: "string", pattern: "^\\d{1,16}$" },
        description: "Unix time in milliseconds; required once request signing is enabled.",
      },
      Signature: {
        name: "X-BI-Signature",
        in: "header",
        required: false,
        schema: { type: "string" },
        description:
          "Hex HMAC-SHA256 of `{timestampMs}.{METHOD}.{path}.{sha256hex(rawBody)}`; required once request signing is enabled. With X-BI-Signature-Version 2, `{path}` is the request target as sent, query included.",
      },
      SignatureVersion: {
        name: "X-BI-Signature-Version",
        in: "header",
        required: false,
        schema: { type: "string", enum: ["1", "2"], default: "1" },
        description:
          "1 (the default) signs the path only; 2 signs the path and the query string, so the query cannot be changed either. Prefer 2.",
      },
    },
    headers: {
      "X-Correlation-Id": header("The request's correlation id.", { type: "string" }),
      "x-ratelimit-plan-limit": header("Authenticated requests per minute the organization's plan allows."),
      "x-ratelimit-plan-remaining": header("Requests left in the organization's current one-minute window."),
      "x-ratelimit-plan-reset": header("Seconds until the plan window rolls (on a plan 429)."),
      "x-ratelimit-limit": header("Per-client-IP backstop: requests per minute."),
      "x-ratelimit-remaining": header("Per-client-IP backstop: requests left in the window."),
      "x-ratelimit-reset": header("Per-client-IP backstop: seconds until the window rolls."),
      "Retry-After": header("Seconds to wait before retrying."),
    },
  };
}

/** Builds the OpenAPI 3.1 document from the route table and the zod schemas the pipeline validates with. */
export function buildOpenApiDocument(routes: RouteDef[]): Json {
  const schemas: Record<string, Json> = {};
  const envelope = toSchema(ErrorEnvelope, "output", schemas);
  if (!schemas.ErrorEnvelope) schemas.ErrorEnvelope = envelope;
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = operation(r, schemas);
  }
  const e = env();
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Bind Identity API",
      version: API_VERSION,
      description: "Identity verification and account binding for Antelope accounts. Every non-2xx answer is an ErrorEnvelope.",
    },
    servers: [{ url: e.BI_PUBLIC_URL.replace(/\/+$/, ""), description: e.BI_ENV }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: { schemas, ...staticComponents() },
  };
}
