import { TRPCError } from "@trpc/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appRouter, createCaller } from "@/server/api/root";
import { routes } from "@/server/http/routes";
import type { RouteDef } from "@/server/http/types";
import { serviceCtx } from "@/server/testing/aml";
import { call, createTestOrg, testServer } from "@/server/testing/harness";

// Generated bad input for every operation of the route table: wrong types, missing and extra
// fields, deep and large values, invalid JSON, NUL and control characters, odd path segments.
// Whatever arrives, the answer is never a 5xx, every error is the documented envelope, and input
// or authentication refusals write no audit entry.

const RUNS = Number(process.env.GENERATED_INPUT_RUNS ?? 8);

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "%", "%00", "../", "..%2F", " ", "\t\n", "'\"", "🙂", "x".repeat(5000)),
  fc.array(fc.integer({ min: 0, max: 31 }), { minLength: 1, maxLength: 8 }).map((codes) => String.fromCharCode(...codes)),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: "small" }, nasty, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), tie("arr"), tie("obj")),
  arr: fc.array(tie("any"), { maxLength: 5 }),
  obj: fc.dictionary(nasty, tie("any"), { maxKeys: 5 }),
})).any;
const deep = fc.integer({ min: 50, max: 400 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`);
const rawBody = fc.oneof(
  value.map((v) => JSON.stringify(v) ?? "null"),
  fc.constantFrom("{", "{}}", '{"a":', "nul", "\u0000", '{"a":"\\u0000"}', '{"a":"\\ud800"}'),
  deep,
  fc.string(),
);
/** Percent-encoded, as a client would send it; a lone surrogate goes as the bytes of one (not UTF-8). */
const encode = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return "%ED%A0%80";
  }
};
const segment = nasty.map((s) => encode(s).slice(0, 300) || "x");

function pathOf(r: RouteDef, segments: string[]) {
  let i = 0;
  return r.path.replace(/\{\w+\}/g, () => segments[i++] ?? "x");
}

/** Every route, each against a fresh organization (a refused allowlist or signing change must not starve the next). */
const cases = routes.filter((r) => r.method !== "GET" || r.query || /\{\w+\}/.test(r.path));

/** Every console procedure, called as its owner would through the tRPC caller, with generated input. */
const procedures = Object.keys(appRouter._def.procedures as Record<string, unknown>);

/**
 * The suite's share `part` of `parts` (every parts-th operation and procedure): each share is a
 * test file of its own, so Vitest runs them in parallel processes, one per core, with every
 * operation still getting RUNS cases.
 */
export function generatedInputSuite(part: number, parts: number) {
  const mine = <T>(list: T[]) => list.filter((_, i) => i % parts === part);
  routeCases(mine(cases));
  procedureCases(mine(procedures));
}

function routeCases(cases: RouteDef[]) {
  describe("generated bad input on every operation", () => {
    it.each(cases.map((r) => [`${r.method} ${r.path}`, r] as const))(
      "%s: never a 5xx, always the envelope, nothing written on refusal",
      async (_name, r) => {
        const { url, db } = await testServer();
        const org = await createTestOrg({ plan: "institutional" });
        const key = r.auth === "public" ? null : org.apiKey;
        await fc.assert(
          fc.asyncProperty(
            fc.array(segment, { minLength: 3, maxLength: 3 }),
            fc.dictionary(nasty, nasty, { maxKeys: 3 }),
            rawBody,
            async (segments, query, body) => {
              const qs = new URLSearchParams(query).toString();
              const path = `${pathOf(r, segments)}${qs ? `?${qs}` : ""}`;
              const before = await db.auditEntry.count({ where: { orgId: org.orgId } });
              const res = await call(url, r.method, path, {
                key,
                rawBody: r.method === "GET" ? undefined : body,
                headers: { "x-forwarded-for": "203.0.113.77" },
              });
              expect(res.status, `${r.method} ${path} → ${res.text.slice(0, 300)}`).toBeLessThan(500);
              if (res.status >= 400) {
                expect(res.body?.error, res.text.slice(0, 300)).toMatchObject({
                  code: expect.any(String),
                  message: expect.any(String),
                  correlationId: expect.any(String),
                });
                // Input and authentication refusals write nothing (a business refusal may be audited on purpose).
                if (res.status === 400 || res.status === 401)
                  expect(await db.auditEntry.count({ where: { orgId: org.orgId } })).toBe(before);
              }
            },
          ),
          { numRuns: RUNS },
        );
      },
      120_000,
    );
  });
}

function procedureCases(procedures: string[]) {
  describe("generated bad input on every console procedure", () => {
    it.each(procedures)(
      "%s: answers or refuses with a client error, never an internal one",
      async (path) => {
        const { db } = await testServer();
        const org = await createTestOrg();
        const svc = await serviceCtx(db, org.orgId, { type: "member", email: "owner@example.test", role: "owner" });
        const caller = createCaller({ svc }) as unknown as Record<string, Record<string, (input?: unknown) => Promise<unknown>>>;
        const [ns, name] = path.split(".") as [string, string];
        await fc.assert(
          fc.asyncProperty(fc.oneof(value, fc.constant(undefined)), async (input) => {
            const outcome = await caller[ns]![name]!(input).then(
              () => "answered",
              (e: unknown) => (e instanceof TRPCError ? e.code : `not a TRPCError: ${String(e)}`),
            );
            expect(outcome, `${path}(${JSON.stringify(input)?.slice(0, 200)})`).not.toBe("INTERNAL_SERVER_ERROR");
            expect(outcome).not.toMatch(/^not a TRPCError/);
          }),
          { numRuns: RUNS },
        );
      },
      120_000,
    );
  });
}
