import { type ZodType, z } from "zod";
import { env } from "@/env";
import { ERRORS, type ErrorCode } from "../errors";
import { exampleFor } from "./openapi-examples";
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
  // Every route: the pipeline refuses a request it cannot read, or a query string with text PostgreSQL would
  // refuse; and the server answers a request line and headers over 16 KiB before any route (node-adapter.ts).
  codes.add("VALIDATION_ERROR");
  codes.add("HEADERS_TOO_LARGE");
  if (r.auth !== "public") for (const c of ["UNAUTHORIZED", "FORBIDDEN", "RATE_LIMITED"] as const) codes.add(c);
  if (hasParams || r.sandboxOnly) codes.add("NOT_FOUND");
  if (r.idempotent) for (const c of ["CONFLICT", "IDEMPOTENCY_KEY_REUSED"] as const) codes.add(c);
  if (r.body) codes.add("PAYLOAD_TOO_LARGE");
  for (const c of r.errors ?? []) codes.add(c);
  codes.add("INTERNAL");
  return [...codes];
}

/** Equal as JSON values, whatever the order of object keys (zod may emit a schema's keys in another order). */
function sameJson(a: unknown, b: unknown): boolean {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Json)[k])]),
          )
        : v;
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

/** Moves `$defs` of one converted schema into components.schemas, keeping names stable and unique. */
function hoist(schema: Json, components: Record<string, Json>, io: "input" | "output"): Json {
  const defs = (schema.$defs ?? {}) as Record<string, Json>;
  delete schema.$defs;
  delete schema.$schema;
  const renamed: Record<string, string> = {};
  for (const name of Object.keys(defs)) {
    const candidates = [name, `${name}${io === "output" ? "Output" : "Input"}`];
    // Compared as it will be stored: its own references point into components.schemas.
    const stored = JSON.parse(JSON.stringify(defs[name]).replaceAll('"#/$defs/', '"#/components/schemas/'));
    let target = candidates.find((c) => !components[c] || sameJson(components[c], stored));
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

/** Zod schemas that become named components, by their export name (see `schemaNames`). */
type SchemaNames = Map<unknown, string>;

/**
 * The export name of every zod schema the given modules export (the domains' index files), so a
 * generated client gets `AccountView` rather than an anonymous type. A schema that already has a
 * `.meta({ id })` keeps it; a schema exported twice keeps its first name.
 */
function schemaNames(modules: Record<string, unknown>[]): SchemaNames {
  const names: SchemaNames = new Map();
  const taken = new Set<string>();
  for (const mod of modules) {
    for (const [name, value] of Object.entries(mod)) {
      if (!value || typeof value !== "object" || !("_zod" in value) || names.has(value)) continue;
      if (z.globalRegistry.get(value as ZodType)?.id) continue;
      if (taken.has(name)) throw new Error(`Two exported schemas are both named ${name}: rename one, or give one a .meta({ id })`);
      taken.add(name);
      names.set(value, name);
    }
  }
  return names;
}

/** The global registry (descriptions, examples, ids), with the export names added as ids. */
function namingRegistry(names: SchemaNames): typeof z.globalRegistry {
  const registry = Object.create(z.globalRegistry) as typeof z.globalRegistry;
  registry.get = ((schema: ZodType) => {
    const meta = z.globalRegistry.get(schema);
    const id = names.get(schema);
    return id ? { ...meta, id } : meta;
  }) as typeof registry.get;
  return registry;
}

type Build = { components: Record<string, Json>; responses: Record<string, Json>; metadata: typeof z.globalRegistry };

function toSchema(schema: ZodType, io: "input" | "output", build: Build): Json {
  const raw = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any", metadata: build.metadata }) as Json;
  spellOutEnumRecords(raw, (raw.$defs ?? {}) as Record<string, Json>);
  return hoist(raw, build.components, io);
}

const ERROR_REF = { $ref: "#/components/schemas/ErrorEnvelope" };
const h = (name: string) => ({ $ref: `#/components/headers/${name}` });
const p = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** The headers of the per-IP backstop and the plan quota, on every answer to an authenticated request. */
const rateLimitHeaders = (): Json =>
  Object.fromEntries(
    ["x-ratelimit-plan-limit", "x-ratelimit-plan-remaining", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"].map((n) => [
      n,
      h(n),
    ]),
  );

function commonHeaders(r: RouteDef): Json {
  return { "X-Correlation-Id": h("X-Correlation-Id"), ...(r.auth === "public" ? {} : rateLimitHeaders()) };
}

/** What an error answer of `code` looks like; the reference shows it beside each error status. */
export function errorExample(code: ErrorCode): z.input<typeof ErrorEnvelope> {
  const details: Record<string, unknown> | undefined =
    code === "VALIDATION_ERROR"
      ? { issues: [{ path: "body.email", message: "Invalid email address" }] }
      : code === "RATE_LIMITED"
        ? { retryAfterSec: 12 }
        : code === "UNAUTHORIZED"
          ? { reason: "invalid_key" }
          : undefined;
  return {
    error: {
      code,
      message: code === "VALIDATION_ERROR" ? "The request body is not valid." : ERRORS[code].message,
      ...(details ? { details } : {}),
      correlationId: "01JQ2X6V8K3M9TPZ4R7W5YB0DE",
    },
  };
}

const pascal = (code: string) => code.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/**
 * The error answers of a route, by status. Each is a shared response in components.responses,
 * named after the codes it can carry (`ValidationError`, `UnauthorizedOrInvalidSignature`…), so
 * the document and generated clients hold each one once.
 */
function errorResponses(r: RouteDef, shared: Record<string, Json>): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesFor(r)) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: Json = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const name = codes.map(pascal).join("Or");
    if (!shared[name]) {
      const headers: Json = { "X-Correlation-Id": h("X-Correlation-Id") };
      if (codes.includes("RATE_LIMITED")) {
        Object.assign(headers, { "Retry-After": h("Retry-After") }, rateLimitHeaders(), {
          "x-ratelimit-plan-reset": h("x-ratelimit-plan-reset"),
        });
      }
      shared[name] = {
        description: codes.map((c) => `${c}: ${ERRORS[c].message}`).join(" "),
        "x-error-codes": codes,
        headers,
        content: { "application/json": { schema: ERROR_REF, example: errorExample(codes[0]!) } },
      };
    }
    out[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return out;
}

/** Parameters are listed property by property, so a root `$ref` (a named schema) is followed. */
function objectSchema(schema: ZodType, build: Build): Json {
  const s = toSchema(schema, "input", build);
  const ref = typeof s.$ref === "string" ? s.$ref.replace("#/components/schemas/", "") : undefined;
  return ref && build.components[ref] ? build.components[ref] : s;
}

function parameters(r: RouteDef, build: Build): Json[] {
  const out: Json[] = [];
  const params = r.params ? objectSchema(r.params, build) : undefined;
  for (const name of pathParamNames(r.path)) {
    const schema = ((params?.properties as Record<string, Json> | undefined)?.[name] ?? { type: "string" }) as Json;
    out.push({ name, in: "path", required: true, schema, description: "URL-encoded." });
  }
  if (r.query) {
    const q = objectSchema(r.query, build);
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

/**
 * The example of a request body or JSON answer: the route's own (checked by TypeScript against the
 * schema, and parsed by tests/openapi.test.ts), else the schema's first `.meta({ examples })`,
 * else one derived from the JSON Schema (openapi-examples.ts).
 */
export function exampleOf(r: RouteDef, which: "request" | "response", schema: Json, components: Record<string, Json>): unknown {
  const own = r.examples?.[which];
  if (own !== undefined) return own;
  const zod = which === "request" ? r.body : r.response;
  const meta = zod ? z.globalRegistry.get(zod)?.examples : undefined;
  if (Array.isArray(meta) && meta.length) return meta[0];
  return exampleFor(schema, components, which === "response");
}

function operation(r: RouteDef, build: Build): Json {
  const success: Json = { description: r.summary, headers: commonHeaders(r) };
  if (r.produces) success.content = { [r.produces]: { schema: { type: "string" } } };
  else if (r.response) {
    const schema = toSchema(r.response, "output", build);
    const content: Json = { "application/json": { schema, example: exampleOf(r, "response", schema, build.components) } };
    // Other media types of the same answer, chosen by Accept (the status lists' application/vc).
    for (const type of r.alsoProduces ?? []) content[type] = { schema };
    success.content = content;
  }
  const op: Json = {
    operationId: operationId(r),
    summary: r.summary,
    tags: [r.tag],
    "x-scope": scopeOf(r),
    security: r.auth === "public" ? [] : [{ bearer: [] }],
    parameters: parameters(r, build),
    responses: { [String(r.successStatus ?? 200)]: success, ...errorResponses(r, build.responses) },
  };
  if (r.idempotent) op["x-idempotent"] = true;
  if (r.sandboxOnly) op["x-sandbox-only"] = true;
  if (r.body) {
    const schema = toSchema(r.body, "input", build);
    op.requestBody = {
      required: !r.body.safeParse({}).success,
      content: { "application/json": { schema, example: exampleOf(r, "request", schema, build.components) } },
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

/** One line per tag, in the order tags first appear in the route table (a tag without one fails the lint test). */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Operations: "Liveness and readiness probes, the client address the service sees, and the organization's own request metrics.",
  Tenant: "The organization's posture as any `read` key sees it: plan, request signing, IP allowlist, country policy and policy flags.",
  Admin:
    "Administration of the organization (scope `admin`): API keys, console members, request signing, IP allowlist, country policy, policy flags, and the overviews the console shows.",
  Compliance:
    "Audit chain verification and signed exports, sanctions/PEP screening of applicants and accounts, and the applicant denylist.",
  Documentation: "This document.",
  Resolution: "W3C did:web documents of the issuer, of people and of organizations, for whoever verifies a credential.",
  Accounts: "Sponsored free chain accounts: name check, creation under the organization's gates, reads and unlock after binding.",
  Contact: "Email and phone verification with one-time codes, and contact changes signed with the account's key.",
  KYC: "Identity verification sessions with the configured providers, KYB for organizations, and the providers' callbacks.",
  Bind: "Binding an approved person to an account with a wallet signature, which issues the AccountBinding credential.",
  Wallets:
    "Credentials in people's own wallets (OpenID4VCI 1.0, SD-JWT VC): the tenant's offer, the issuer metadata, and the token, nonce and credential endpoints a wallet calls.",
  AML: "The AML case queue: clearing (with four-eyes approval when the policy asks for it) and confirming matches.",
  Risk: "Anti-abuse risk assessment before an account is created or bound.",
  Claims: "One claim of an action (an airdrop, a vote, a faucet drip) per human, whichever of their accounts claims.",
  People: "A person's personal data: erasure (held by an open AML case or the retention period, then carried out) and its status.",
  Webhooks: "Receivers of signed event notifications, their deliveries, and replay of failed deliveries.",
  Billing: "Plans, sign-up with a verified work email, checkout by card or on chain, and the organization's usage.",
  Sandbox: "Sandbox-only helpers that stand in for a provider or a payment (404 in production).",
};

/** Where `s` is a record keyed by an enum that lists every key, names each key as a property (same meaning, clearer to generators and linters). */
function spellOutEnumRecords(v: unknown, defs: Record<string, Json>): void {
  if (Array.isArray(v)) {
    for (const x of v) spellOutEnumRecords(x, defs);
    return;
  }
  if (!v || typeof v !== "object") return;
  const s = v as Json;
  let names = s.propertyNames as Json | undefined;
  if (typeof names?.$ref === "string") names = defs[names.$ref.replace("#/$defs/", "")];
  const keys = names?.enum as string[] | undefined;
  const value = s.additionalProperties;
  if (keys && value && typeof value === "object" && !s.properties) {
    const required = new Set((s.required as string[] | undefined) ?? []);
    s.properties = Object.fromEntries(keys.map((k) => [k, value]));
    s.additionalProperties = false;
    delete s.propertyNames;
    if (required.size) s.required = keys.filter((k) => required.has(k));
  }
  for (const x of Object.values(s)) spellOutEnumRecords(x, defs);
}

/** Drops component schemas nothing refers to (a named params or query object is listed property by property instead). */
function pruneSchemas(doc: Json, schemas: Record<string, Json>): void {
  const used = new Set<string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (!v || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "$ref" && typeof x === "string" && x.startsWith("#/components/schemas/")) {
        const name = x.slice(21);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(x);
    }
  };
  visit(doc.paths);
  visit({ ...(doc.components as Json), schemas: undefined });
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

/**
 * Builds the OpenAPI 3.1 document from the route table and the zod schemas the pipeline validates
 * with. `schemaModules` are the domains' public surfaces: each zod schema they export becomes a
 * named component under its export name.
 */
export function buildOpenApiDocument(routes: RouteDef[], schemaModules: Record<string, unknown>[] = []): Json {
  const build: Build = { components: {}, responses: {}, metadata: namingRegistry(schemaNames(schemaModules)) };
  const schemas = build.components;
  const envelope = toSchema(ErrorEnvelope, "output", build);
  if (!schemas.ErrorEnvelope) schemas.ErrorEnvelope = envelope;
  const paths: Record<string, Json> = {};
  const ours = routes.filter((r) => !r.foreignProtocol);
  for (const r of ours) {
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = operation(r, build);
  }
  const e = env();
  const tags = [...new Set(ours.map((r) => r.tag))];
  const doc: Json = {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Bind Identity API",
      version: API_VERSION,
      description: "Identity verification and account binding for Antelope accounts. Every non-2xx answer is an ErrorEnvelope.",
      license: { name: "Proprietary: use is governed by the operator's terms of service", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: e.BI_PUBLIC_URL, description: e.BI_ENV }],
    tags: tags.map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name })),
    paths,
    components: { schemas, responses: build.responses, ...staticComponents() },
  };
  pruneSchemas(doc, schemas);
  return doc;
}
