import http from "node:http";
import { afterAll } from "vitest";
import type { Plan } from "@/generated/prisma/enums.ts";
import { hmacSha256Hex } from "../crypto/hash";
import { type Db, getDb } from "../db/client";
import { canonicalString } from "../http/middleware/signing";
import { answerParserRefusals, nodeHandler } from "../http/node-adapter";
import { createPipeline, type PipelineOptions } from "../http/pipeline";
import { routes } from "../http/routes";
import type { RouteDef } from "../http/types";
import { provisionOrganization } from "../services/org";
import { type FakeServer, listenOnLoopback } from "./fake-http";

export type TestServer = FakeServer & { db: Db };

let shared: Promise<TestServer> | undefined;

/** The real /v1 pipeline over `routeList` behind a real HTTP server on a free loopback port. */
export async function servePipeline(db: Db, routeList: RouteDef[] = routes, opts?: PipelineOptions): Promise<FakeServer> {
  return listenOnLoopback(answerParserRefusals(http.createServer(nodeHandler(createPipeline(routeList, db, opts)))));
}

/**
 * The real /v1 pipeline against the run's PostgreSQL database, served as servePipeline does.
 * One per test file; closed after the file.
 */
export function testServer(): Promise<TestServer> {
  shared ??= (async () => {
    const db = await getDb();
    return { ...(await servePipeline(db)), db };
  })();
  return shared;
}

afterAll(async () => {
  if (shared) await (await shared).close();
  shared = undefined;
});

let orgCounter = 0;

export type TestOrg = { orgId: string; apiKey: string; consolePassword: string; db: Db };

/** A fresh organization with a full-access key, as `org:create` makes it. */
export async function createTestOrg(opts: { plan?: Plan; name?: string } = {}): Promise<TestOrg> {
  const db = await getDb();
  const n = ++orgCounter;
  const out = await provisionOrganization(
    db,
    { name: opts.name ?? `Test Org ${process.pid}-${n}`, email: `owner${n}@example.test`, plan: opts.plan },
    { type: "system", label: "test" },
  );
  return { orgId: out.organizationId, apiKey: out.apiKey, consolePassword: out.consolePassword, db };
}

export type ApiResponse<T = any> = { status: number; headers: Headers; body: T; text: string };

export type CallOptions = {
  key?: string | null;
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Sign with this secret (X-BI-Timestamp + X-BI-Signature). */
  signWith?: string;
  timestampMs?: number;
};

/** Calls the service over HTTP as a tenant backend would. */
export async function call<T = any>(base: string, method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const raw = opts.rawBody ?? (opts.body === undefined ? "" : JSON.stringify(opts.body));
  const headers: Record<string, string> = { ...(raw ? { "content-type": "application/json" } : {}), ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.signWith) {
    const ts = String(opts.timestampMs ?? Date.now());
    headers["x-bi-timestamp"] = ts;
    headers["x-bi-signature"] = hmacSha256Hex(opts.signWith, canonicalString(ts, method, path.split("?")[0]!, raw));
  }
  const res = await fetch(base + path, { method, headers, body: raw || undefined });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (metrics)
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** A client bound to one server and key. */
export function client(base: string, key?: string) {
  return {
    get: <T = any>(path: string, o: CallOptions = {}) => call<T>(base, "GET", path, { key, ...o }),
    post: <T = any>(path: string, body?: unknown, o: CallOptions = {}) => call<T>(base, "POST", path, { key, body, ...o }),
    put: <T = any>(path: string, body?: unknown, o: CallOptions = {}) => call<T>(base, "PUT", path, { key, body, ...o }),
    patch: <T = any>(path: string, body?: unknown, o: CallOptions = {}) => call<T>(base, "PATCH", path, { key, body, ...o }),
    delete: <T = any>(path: string, o: CallOptions = {}) => call<T>(base, "DELETE", path, { key, ...o }),
  };
}
