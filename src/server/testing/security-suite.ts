import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { SCOPES, type Scope } from "@/lib/scopes";
import type { Db } from "../db/client";
import { ErrorEnvelope, pathParamNames } from "../http/openapi";
import type { RouteDef } from "../http/types";
import { insertApiKey } from "../services/org/api-keys";
import { type ApiResponse, call, createTestOrg, testServer } from "./harness";
import { type FixtureContext, fixtureKey, type RouteFixture, routeFixtures } from "./route-fixtures";
import { validQuerySample, validSample } from "./sample-values";

export type SecurityCase = { name: string; run: () => Promise<void> };
export type RouteCases = { route: RouteDef; title: string; cases: SecurityCase[] };

type World = {
  url: string;
  db: Db;
  orgA: string;
  orgB: string;
  keyB: string;
  /** A key of org A with every scope, revoked. */
  revokedA: string;
  restricted: Map<Scope, Promise<string>>;
};
type Request = { path: string; body: unknown; rawBody?: string };

const PLACEHOLDER = "00000000-0000-4000-8000-000000000000";

let world: Promise<World> | undefined;

/** Two organizations on the largest plan, so the suite never meets the plan quota. */
function getWorld(): Promise<World> {
  world ??= (async () => {
    const { url, db } = await testServer();
    const a = await createTestOrg({ plan: "institutional", name: `Security A ${process.pid}` });
    const b = await createTestOrg({ plan: "institutional", name: `Security B ${process.pid}` });
    const revoked = await db.$transaction((tx) =>
      insertApiKey(tx, a.orgId, { name: "revoked", scopes: SCOPES, createdBy: "system:security-suite" }),
    );
    await db.apiKey.update({ where: { id: revoked.key.id }, data: { revokedAt: new Date() } });
    return { url, db, orgA: a.orgId, orgB: b.orgId, keyB: b.apiKey, revokedA: revoked.raw, restricted: new Map() };
  })();
  return world;
}

/** A key of org A holding every scope except `scope`. */
function keyWithout(w: World, scope: Scope): Promise<string> {
  let k = w.restricted.get(scope);
  if (!k) {
    k = w.db
      .$transaction((tx) =>
        insertApiKey(tx, w.orgA, {
          name: `all but ${scope}`,
          scopes: SCOPES.filter((s) => s !== scope),
          createdBy: "system:security-suite",
        }),
      )
      .then((r) => r.raw);
    w.restricted.set(scope, k);
  }
  return k;
}

/**
 * Rows and a digest of their contents, per table with an "orgId" column (found in
 * information_schema, so tables added later are covered), plus the organization's own row.
 * `lastUsedAt` is left out: authenticating a key touches it by design.
 *
 * Nothing but the request under test writes between two footprints: every test file works in a
 * database of its own (setup-env.ts) and the security suite starts no job runner, so queued work
 * its fixtures make (export jobs, recover jobs, monitoring runs, failed deliveries) stays as made.
 * A suite that does run jobs beside its footprints must stop them first.
 */
export async function orgFootprint(db: Db, orgId: string): Promise<Record<string, { rows: number; digest: string }>> {
  const tables = await db.$queryRaw<{ table_name: string }[]>`
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
    WHERE c.table_schema = current_schema() AND c.column_name = 'orgId' ORDER BY c.table_name`;
  const out: Record<string, { rows: number; digest: string }> = {};
  const digest = async (from: string, where: string) => {
    const [r] = await db.$queryRawUnsafe<{ rows: number; digest: string }[]>(
      `SELECT count(*)::int AS rows, md5(coalesce(string_agg(j, '|' ORDER BY j), '')) AS digest
       FROM (SELECT (to_jsonb(t) - 'lastUsedAt')::text AS j FROM ${from} t WHERE ${where} = $1::uuid) s`,
      orgId,
    );
    return r!;
  };
  for (const { table_name } of tables) out[table_name] = await digest(`"${table_name.replace(/"/g, '""')}"`, `t."orgId"`);
  out.organizations = await digest("organizations", "t.id");
  return out;
}

function expectError(res: ApiResponse, status: number, code: string, reason?: string) {
  expect(res.status, res.text).toBe(status);
  expect(ErrorEnvelope.safeParse(res.body).success, res.text).toBe(true);
  expect(res.body.error.code).toBe(code);
  if (reason) expect(res.body.error.details?.reason).toBe(reason);
  expect(res.body.error.correlationId).toBe(res.headers.get("x-correlation-id"));
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? PLACEHOLDER));
}

/**
 * The request a tenant would send: params from the fixture (a record made in `ctx.orgId`), a body
 * and query the route's schemas accept. `strict` fails when no valid input can be made, so a
 * refusal is never explained by a bad request instead of the check under test.
 */
async function buildRequest(
  route: RouteDef,
  fixture: RouteFixture | undefined,
  ctx: FixtureContext | null,
  strict: boolean,
): Promise<Request> {
  const key = fixtureKey(route.method, route.path);
  const where = `add it to the "${key}" entry of src/server/testing/route-fixtures.ts`;
  const params = ctx && fixture?.params ? await fixture.params(ctx) : {};
  if (strict && route.params && !route.params.safeParse(params).success)
    throw new Error(`The fixture params of ${key} do not pass its params schema`);
  let path = fillPath(route.path, params);
  if (route.query) {
    const q = validQuerySample(route.query, fixture?.query ? [fixture.query] : []);
    if (!q && strict) throw new Error(`No valid sample query for ${key}: ${where}`);
    if (q && Object.keys(q).length) path += `?${new URLSearchParams(q)}`;
  }
  if (!route.body) return { path, body: undefined };
  // Awaited: a body that makes a record first (an account to claim with) has made it before the test reads its "before".
  const given = ctx && fixture?.body ? [await fixture.body(ctx, params)] : [];
  const body = validSample(route.body, given);
  if (!body && strict) throw new Error(`No valid sample body for ${key}: ${where}`);
  return { path, body: body?.value ?? {} };
}

const send = (w: World, route: RouteDef, req: Request, key: string | null, headers: Record<string, string> = {}) =>
  call(w.url, route.method, req.path, { key, body: req.body, headers });

/** The cases of one authenticated route. */
function casesFor(route: RouteDef & { auth: { scope: Scope } }): SecurityCase[] {
  const scope = route.auth.scope;
  const key = fixtureKey(route.method, route.path);
  const fixture = routeFixtures[key];
  const unauthenticated = (name: string, header: (w: World) => Record<string, string>, reason: string): SecurityCase => ({
    name,
    run: async () => {
      const w = await getWorld();
      const res = await send(w, route, await buildRequest(route, undefined, null, false), null, header(w));
      expectError(res, 401, "UNAUTHORIZED", reason);
    },
  });
  const cases: SecurityCase[] = [
    unauthenticated("no key → 401 missing_key", () => ({}), "missing_key"),
    unauthenticated(
      "unknown bi_test_ key → 401 invalid_key",
      () => ({ authorization: `Bearer bi_test_${randomBytes(24).toString("base64url")}` }),
      "invalid_key",
    ),
    unauthenticated("revoked key with every scope → 401 invalid_key", (w) => ({ authorization: `Bearer ${w.revokedA}` }), "invalid_key"),
    unauthenticated(
      "production bi_ key on sandbox → 401 wrong_environment",
      () => ({ authorization: `Bearer bi_${randomBytes(24).toString("hex")}` }),
      "wrong_environment",
    ),
    {
      name: `key with every scope but '${scope}' → 403 missing_scope, nothing written`,
      run: async () => {
        const w = await getWorld();
        const restricted = await keyWithout(w, scope);
        const req = await buildRequest(route, fixture, { db: w.db, orgId: w.orgA }, true);
        const before = await orgFootprint(w.db, w.orgA);
        const res = await send(w, route, req, restricted);
        expectError(res, 403, "FORBIDDEN", "missing_scope");
        expect(await orgFootprint(w.db, w.orgA)).toEqual(before);
      },
    },
  ];
  if (pathParamNames(route.path).length) {
    cases.push({
      name: "another organization's record → 404, nothing written",
      run: async () => {
        if (!fixture?.params) {
          throw new Error(
            `${key} has path parameters but no fixture: add params to its entry in src/server/testing/route-fixtures.ts (create a record in the given org and return its params)`,
          );
        }
        const w = await getWorld();
        const req = await buildRequest(route, fixture, { db: w.db, orgId: w.orgA }, true);
        const [beforeA, beforeB] = [await orgFootprint(w.db, w.orgA), await orgFootprint(w.db, w.orgB)];
        const res = await send(w, route, req, w.keyB);
        expectError(res, 404, "NOT_FOUND");
        expect(res.body.error.message).not.toBe("No such route.");
        expect(await orgFootprint(w.db, w.orgA)).toEqual(beforeA);
        expect(await orgFootprint(w.db, w.orgB)).toEqual(beforeB);
      },
    });
  }
  return cases;
}

/** One group of cases per authenticated route of the table; tests/security.test.ts runs them. */
export function securityCases(routes: RouteDef[]): RouteCases[] {
  return routes
    .filter((r): r is RouteDef & { auth: { scope: Scope } } => r.auth !== "public")
    .map((route) => ({ route, title: `${route.method} ${route.path} (${route.auth.scope})`, cases: casesFor(route) }));
}

/** Exposed for the suite's own tests. */
export { getWorld as securityWorld };
