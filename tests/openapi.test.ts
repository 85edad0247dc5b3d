import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "@/env";
import { ErrorEnvelope, pathParamNames, scopeOf } from "@/server/http/openapi";
import { routes as allRoutes, openApiDocument } from "@/server/http/routes";

// Routes that speak a chain node's own protocol are served and tested elsewhere but are not ours
// to document; only the sandbox chain's node API may be one (checked below).
const routes = allRoutes.filter((r) => !r.foreignProtocol);

import { client, testServer } from "@/server/testing/harness";

type Doc = {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, any>>;
  components: any;
};

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const APP_DIR = path.resolve(import.meta.dirname, "../src/app");

/** Next route handlers under src/app (api/auth and api/trpc are the console's own doors). */
function nextRouteHandlers(): { method: string; path: string; file: string }[] {
  const out: { method: string; path: string; file: string }[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/^route\.(ts|tsx|js|mjs)$/.test(e.name)) {
        const segments = path
          .relative(APP_DIR, dir)
          .split(path.sep)
          .filter((s) => s && !/^\(.*\)$/.test(s));
        const url = `/${segments.map((s) => s.replace(/^\[{1,2}(?:\.\.\.)?(\w+)\]{1,2}$/, "{$1}")).join("/")}`;
        if (/^\/api\/(auth|trpc)(\/|$)/.test(url)) continue;
        const text = fs.readFileSync(full, "utf8");
        for (const m of METHODS) {
          const exported = new RegExp(`export\\s+(async\\s+)?(function|const|let)\\s+${m}\\b|export\\s*\\{[^}]*\\b${m}\\b[^}]*\\}`).test(
            text,
          );
          if (exported) out.push({ method: m, path: url, file: path.relative(process.cwd(), full) });
        }
      }
    }
  };
  walk(APP_DIR);
  return out;
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path: p, op: ops[m] })));

describe("GET /v1/openapi.json", () => {
  let url: string;
  let doc: Doc;

  beforeAll(async () => {
    url = (await testServer()).url;
    const res = await client(url).get("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    doc = JSON.parse(res.text);
  });

  it("is an OpenAPI 3.1 document of version 0.2.0 for this deployment", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe("0.2.0");
    expect(doc.servers[0]!.url).toBe(env().BI_PUBLIC_URL.replace(/\/+$/, ""));
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("is public and served from a per-process cache", async () => {
    const again = await client(url).get("/v1/openapi.json");
    expect(again.status).toBe(200);
    expect(again.body).toEqual(doc);
    expect(await openApiDocument()).toBe(await openApiDocument());
  });

  it("is byte for byte the reviewed document in tests/fixtures/openapi.json (OPENAPI_SNAPSHOT=write renews it)", async () => {
    const res = await client(url).get("/v1/openapi.json");
    const fixture = path.resolve(import.meta.dirname, "fixtures/openapi.json");
    if (process.env.OPENAPI_SNAPSHOT === "write") fs.writeFileSync(fixture, res.text);
    // Any change to the served contract shows up as a diff of this file in review.
    expect(res.text === fs.readFileSync(fixture, "utf8"), "GET /v1/openapi.json differs from tests/fixtures/openapi.json").toBe(true);
  });

  it("lists every route of the table with its method, scope, security and parameters", () => {
    for (const r of routes) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path} is missing from the document`).toBeDefined();
      expect(op["x-scope"]).toBe(scopeOf(r));
      expect(op.security).toEqual(r.auth === "public" ? [] : [{ bearer: [] }]);
      const names = op.parameters.map((p: any) => p.name ?? p.$ref);
      for (const n of pathParamNames(r.path)) {
        expect(op.parameters).toContainEqual(expect.objectContaining({ name: n, in: "path", required: true }));
      }
      expect(names).toContain("#/components/parameters/CorrelationId");
      expect(names.includes("#/components/parameters/IdempotencyKey")).toBe(!!r.idempotent);
      expect(!!op.requestBody).toBe(!!r.body);
      const success = op.responses[String(r.successStatus ?? 200)];
      expect(success, `${r.method} ${r.path} success response`).toBeDefined();
      if (r.produces) expect(Object.keys(success.content)).toEqual([r.produces]);
      else if (r.response) expect(success.content["application/json"].schema).toBeDefined();
    }
  });

  it("documents every error the pipeline can produce, in the one envelope", () => {
    const deref = (r: any) => (r.$ref ? doc.components.responses[r.$ref.replace("#/components/responses/", "")] : r);
    for (const { method, path: p, op: raw } of operations(doc)) {
      const op = { ...raw, responses: Object.fromEntries(Object.entries(raw.responses).map(([s, r]) => [s, deref(r)])) };
      const r = routes.find((x) => x.method === method && x.path === p)!;
      const statuses = Object.keys(op.responses);
      const expected = ["500"];
      if (r.auth !== "public") expected.push("401", "403", "429");
      if (r.body || r.query || r.params || pathParamNames(p).length) expected.push("400");
      if (r.idempotent) expected.push("400", "409", "422");
      for (const s of expected) expect(statuses, `${method} ${p} documents ${s}`).toContain(s);
      for (const code of r.errors ?? []) {
        expect(
          Object.values(op.responses).some((x: any) => x["x-error-codes"]?.includes(code)),
          `${method} ${p} documents ${code}`,
        ).toBe(true);
      }
      for (const s of statuses.filter((x) => Number(x) >= 400)) {
        expect(op.responses[s].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorEnvelope" });
      }
      if (r.auth !== "public") {
        expect(op.responses["429"].headers).toHaveProperty("x-ratelimit-plan-reset");
        expect(op.responses["429"].headers).toHaveProperty("Retry-After");
        expect(op.responses[statuses[0]!].headers).toHaveProperty("x-ratelimit-plan-remaining");
        expect(op.responses[statuses[0]!].headers).toHaveProperty("x-ratelimit-limit");
      }
    }
  });

  it("describes the error envelope real answers use", async () => {
    const env = doc.components.schemas.ErrorEnvelope;
    expect(env.required).toEqual(["error"]);
    expect(env.properties.error.required).toEqual(expect.arrayContaining(["code", "message", "correlationId"]));
    expect(env.properties.error.properties.code.enum).toEqual(
      expect.arrayContaining(["VALIDATION_ERROR", "UNAUTHORIZED", "RATE_LIMITED", "IDEMPOTENCY_KEY_REUSED"]),
    );
    const res = await client(url).get("/v1/tenant");
    expect(ErrorEnvelope.safeParse(res.body).success).toBe(true);
    expect(env.properties.error.properties.code.enum).toContain(res.body.error.code);
  });

  it("refers every request body and every 2xx JSON answer to a named schema (no exceptions)", () => {
    const anonymous: string[] = [];
    for (const { method, path: p, op } of operations(doc)) {
      const media = [
        op.requestBody?.content?.["application/json"],
        ...Object.entries(op.responses)
          .filter(([s]) => s.startsWith("2"))
          .map(([, r]: [string, any]) => r.content?.["application/json"]),
      ];
      for (const m of media.filter(Boolean))
        if (!/^#\/components\/schemas\/\w+$/.test(m.schema.$ref ?? "")) anonymous.push(`${method} ${p}`);
    }
    expect(anonymous).toEqual([]);
    // Names come from our code: each is an export name of a domain's schema or a route's `.meta({ id })`.
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        "ErrorEnvelope",
        "AccountView",
        "FreeAccountInput",
        "TenantView",
        "WebhookView",
        "DeliveryView",
        "AuditEntryView",
        "PlanCatalog",
        "Usage",
      ]),
    );
    expect(
      Object.keys(doc.components.schemas).filter((n) => /\d$/.test(n)),
      "a numbered name means two different schemas share an export name",
    ).toEqual([]);
  });

  it("has an example on every request body and 2xx JSON answer that the route's own zod schema accepts", () => {
    const refused: string[] = [];
    const check = (r: (typeof routes)[number], which: string, schema: { safeParse: (v: unknown) => any }, media: any) => {
      if (media?.example === undefined) return refused.push(`${r.method} ${r.path} ${which}: no example`);
      const parsed = schema.safeParse(media.example);
      if (!parsed.success)
        refused.push(`${r.method} ${r.path} ${which}: ${JSON.stringify(parsed.error.issues)} in ${JSON.stringify(media.example)}`);
    };
    for (const r of routes) {
      const op = doc.paths[r.path]![r.method.toLowerCase()];
      if (r.body) check(r, "request", r.body, op.requestBody.content["application/json"]);
      if (r.response && !r.produces)
        check(r, "response", r.response, op.responses[String(r.successStatus ?? 200)].content["application/json"]);
    }
    expect(refused).toEqual([]);
  });

  it("shares each error answer once, with an example in the envelope, and every operation documents a 4xx", () => {
    for (const [name, res] of Object.entries<any>(doc.components.responses)) {
      const example = res.content["application/json"].example;
      expect(ErrorEnvelope.safeParse(example).success, `${name} example`).toBe(true);
      expect(res["x-error-codes"]).toContain(example.error.code);
    }
    for (const { method, path: p, op } of operations(doc)) {
      expect(
        Object.keys(op.responses).some((s) => s.startsWith("4")),
        `${method} ${p} has a 4xx`,
      ).toBe(true);
    }
  });

  it("every route really answers 400 in the envelope to a query string with text the service refuses", async () => {
    for (const p of ["/v1/health", "/v1/billing/plans", "/.well-known/did.json"]) {
      const res = await client(url).get(`${p}?q=%00`);
      expect(res.status, p).toBe(400);
      expect(ErrorEnvelope.parse(res.body).error.code).toBe("VALIDATION_ERROR");
      expect(doc.paths[p]!.get.responses["400"]).toEqual({ $ref: "#/components/responses/ValidationError" });
    }
  });

  it("resolves every $ref inside the document", () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object")
        for (const [k, x] of Object.entries(v)) k === "$ref" && typeof x === "string" ? refs.push(x) : walk(x);
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref, ref).toMatch(/^#\//);
      const target = ref
        .slice(2)
        .split("/")
        .reduce<any>((o, k) => o?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
      expect(target, `${ref} does not resolve`).toBeDefined();
    }
  });

  it("leaves out of the document only the sandbox chain's node API, which speaks nodeos' protocol", () => {
    const foreign = allRoutes.filter((r) => r.foreignProtocol);
    expect(foreign.length).toBeGreaterThan(0);
    for (const r of foreign) {
      expect(r.path, `${r.method} ${r.path}`).toMatch(/^\/v1\/sandbox\/chain\/v1\/chain\/[a-z_]+$/);
      expect(r).toMatchObject({ sandboxOnly: true, auth: "public" });
    }
  });

  it("lists everything that is served, and nothing that is not (fails when a route is undocumented)", () => {
    const served = [...routes.map((r) => `${r.method} ${r.path}`), ...nextRouteHandlers().map((h) => `${h.method} ${h.path}`)];
    const documented = operations(doc).map((o) => `${o.method} ${o.path}`);
    expect(
      served.filter((s) => !documented.includes(s)),
      "served but not in the OpenAPI document",
    ).toEqual([]);
    expect(
      documented.filter((d) => !served.includes(d)),
      "documented but not served",
    ).toEqual([]);
    // /v1 and the DID paths go to our pipeline, so a Next handler there would never be reached.
    const shadowed = nextRouteHandlers().filter((h) => h.path === "/v1" || h.path.startsWith("/v1/") || h.path.endsWith("/did.json"));
    expect(shadowed.map((h) => h.file)).toEqual([]);
  });

  it("matches what the pipeline actually routes (probed with OPTIONS, which every route refuses with its allowed methods)", async () => {
    const byPath = new Map<string, string[]>();
    for (const o of operations(doc)) byPath.set(o.path, [...(byPath.get(o.path) ?? []), o.method]);
    for (const [template, methods] of byPath) {
      const concrete = template.replace(/\{\w+\}/g, "probe");
      const res = await fetch(url + concrete, { method: "OPTIONS" });
      const body = await res.json();
      expect(res.status, `${template} is not routed`).toBe(405);
      expect(body.error.details.allowed).toEqual(expect.arrayContaining(methods));
    }
  });

  it("answers a path it does not list with 404 in the envelope", async () => {
    for (const p of ["/v1/openapi.yaml", "/v1/not-a-route", "/v1/admin/nothing-here"]) {
      const res = await client(url).get(p, { headers: { "x-correlation-id": "probe-404" } });
      expect(res.status).toBe(404);
      expect(ErrorEnvelope.parse(res.body).error).toMatchObject({ code: "NOT_FOUND", correlationId: "probe-404" });
      expect(doc.paths[p]).toBeUndefined();
    }
  });
});
