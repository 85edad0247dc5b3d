import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../db/client";
import { logger } from "../../log";
import { FLUSH_INTERVAL_MS, maxUnsynced } from "../../platform/rate-limit-batch";
import { createTestOrg, type TestOrg } from "../../testing/harness";
import { type Instance, startInstance, stopInstance } from "../../testing/instance";
import { compose } from "../pipeline";
import type { PipelineState, RouteDef } from "../types";
import { ipBackstop, rateLimitFactor } from "./rate-limit";

/** Fixed one-minute windows: start early in a minute so all requests land in the same window. */
async function awaitFreshWindow(minimumMs = 15_000) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < minimumMs) await new Promise((r) => setTimeout(r, left + 250));
}

type Answer = { status: number; headers: Headers; body: any; instance: number };

async function pool<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

const settle = () => new Promise((r) => setTimeout(r, FLUSH_INTERVAL_MS * 3));

async function windowCount(bucket: string): Promise<number[]> {
  const db = await getDb();
  const windows = await db.rateLimitWindow.findMany({ where: { bucket } });
  return windows.map((w) => w.count);
}

describe("plan rate limit across two instances", () => {
  let a: Instance | undefined;
  let b: Instance | undefined;
  let org: TestOrg;

  beforeAll(async () => {
    [a, b] = await Promise.all([startInstance(), startInstance()]);
    org = await createTestOrg({ plan: "builder" });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([stopInstance(a), stopInstance(b)]);
  });

  const get = async (i: number, key: string): Promise<Answer> => {
    const inst = i % 2 === 0 ? a! : b!;
    const res = await fetch(`${inst.base}/v1/tenant`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, headers: res.headers, body: await res.json(), instance: i % 2 };
  };

  // The plan quota is counted in process and written in batches, so two
  // instances no longer agree on every single hit (the old test asserted exactly 120 and a
  // shared 119…0 countdown, which only a write per request gives). What stays exact: one
  // instance's own countdown, at least the quota admitted, at most the documented overshoot,
  // the 429 answers, and every hit written to the shared window once.
  it("lets a Builder organization make its 120 requests a minute across both instances, overshooting by at most the documented bound", async () => {
    await awaitFreshWindow();
    const first = [];
    for (let i = 0; i < 10; i++) first.push(await get(0, org.apiKey));
    const rest = await pool(120, 8, (i) => get(i + 10, org.apiKey));
    const all = [...first, ...rest];

    // One instance's sequential run shows its remaining quota going down one by one.
    expect(first.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(first.map((r) => Number(r.headers.get("x-ratelimit-plan-remaining")))).toEqual([
      119, 118, 117, 116, 115, 114, 113, 112, 111, 110,
    ]);

    const ok = all.filter((r) => r.status === 200);
    const limited = all.filter((r) => r.status === 429);
    const bound = 2 * (maxUnsynced(120) - 1);
    expect(ok.length).toBeGreaterThanOrEqual(120);
    expect(ok.length).toBeLessThanOrEqual(120 + bound);
    expect(ok.length + limited.length).toBe(130);
    expect(new Set(ok.map((r) => r.instance))).toEqual(new Set([0, 1]));
    expect(new Set(limited.map((r) => r.instance))).toEqual(new Set([0, 1]));
    for (const r of ok) {
      expect(r.headers.get("x-ratelimit-plan-limit")).toBe("120");
      const remaining = Number(r.headers.get("x-ratelimit-plan-remaining"));
      expect(Number.isInteger(remaining) && remaining >= 0 && remaining <= 119).toBe(true);
    }

    for (const r of limited) {
      expect(r.body.error.code).toBe("RATE_LIMITED");
      const retryAfter = r.body.error.details.retryAfterSec;
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect(r.headers.get("retry-after")).toBe(String(retryAfter));
      expect(r.headers.get("x-ratelimit-plan-reset")).toBe(String(retryAfter));
      expect(r.headers.get("x-ratelimit-plan-remaining")).toBe("0");
      expect(r.body.error.correlationId).toBe(r.headers.get("x-correlation-id"));
    }

    // Every hit, admitted or refused, reaches the shared window exactly once.
    await settle();
    expect(await windowCount(`plan:${org.orgId}`)).toEqual([130]);
  }, 60_000);

  it("never admits more than a Growth quota plus the documented bound when both instances are hammered at once", async () => {
    await awaitFreshWindow(20_000);
    const growth = await createTestOrg({ plan: "growth" });
    const answers = await pool(720, 24, (i) => get(i, growth.apiKey));
    const ok = answers.filter((r) => r.status === 200).length;
    const bound = 2 * (maxUnsynced(600) - 1);
    expect(ok).toBeGreaterThanOrEqual(600);
    expect(ok).toBeLessThanOrEqual(600 + bound);
    expect(answers.filter((r) => r.status === 429).length).toBe(720 - ok);
    await settle();
    expect(await windowCount(`plan:${growth.orgId}`)).toEqual([720]);
  }, 90_000);

  it("loses at most an instance's unsynchronised hits when it is killed with SIGKILL, and nothing already written", async () => {
    await awaitFreshWindow(20_000);
    const growth = await createTestOrg({ plan: "growth" });
    const c = await startInstance();
    const hit = async () => (await fetch(`${c.base}/v1/tenant`, { headers: { authorization: `Bearer ${growth.apiKey}` } })).status;
    // A first run, given time to be written.
    for (let i = 0; i < 20; i++) expect(await hit()).toBe(200);
    await settle();
    expect(await windowCount(`plan:${growth.orgId}`)).toEqual([20]);
    // A second run, killed at once: only what was not yet written may be missing.
    for (let i = 0; i < 30; i++) expect(await hit()).toBe(200);
    await stopInstance(c, "SIGKILL");
    const [written] = await windowCount(`plan:${growth.orgId}`);
    expect(written).toBeLessThanOrEqual(50);
    expect(written).toBeGreaterThanOrEqual(50 - (maxUnsynced(600) - 1));
    // The surviving instance carries on from what was written.
    const next = await get(0, growth.apiKey);
    expect(next.status).toBe(200);
    expect(Number(next.headers.get("x-ratelimit-plan-remaining"))).toBe(600 - written! - 1);
  }, 120_000);

  it("counts per organization: another Builder organization keeps its own quota", async () => {
    const other = await createTestOrg({ plan: "builder" });
    const res = await get(1, other.apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-plan-remaining")).toBe("119");
  });

  it("sends the per-IP backstop headers on authenticated answers, including refusals", async () => {
    for (const r of [await get(0, org.apiKey), await get(1, "bi_test_unknown")]) {
      expect(r.headers.get("x-ratelimit-limit")).toBe("6000");
      const remaining = Number(r.headers.get("x-ratelimit-remaining"));
      expect(Number.isInteger(remaining) && remaining >= 0 && remaining < 6000).toBe(true);
      const reset = Number(r.headers.get("x-ratelimit-reset"));
      expect(reset >= 1 && reset <= 60).toBe(true);
    }
    const pub = await fetch(`${a!.base}/v1/health`);
    expect(pub.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe("per-IP backstop middleware", () => {
  const route = { method: "GET", path: "/v1/x", auth: { scope: "read" } } as RouteDef;

  it("refuses a client address past its limit with 429 and the x-ratelimit headers", async () => {
    await awaitFreshWindow(5_000);
    const db = await getDb();
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}:${process.pid}:${Date.now()}`;
    const run = compose([ipBackstop(3)], async (s) => ({ status: 200, headers: { ...s.headers }, body: "" }));
    const state = () => ({ db, clientIp: ip, headers: {}, route, params: {}, log: logger() }) as unknown as PipelineState;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await run(state()));
    expect(answers.map((r) => r.headers["x-ratelimit-remaining"])).toEqual(["2", "1", "0"]);
    expect(answers.every((r) => r.headers["x-ratelimit-limit"] === "3")).toBe(true);
    const refused = await run(state()).then(
      () => undefined,
      (e: { code: string; headers: Record<string, string>; details: { retryAfterSec: number } }) => e,
    );
    expect(refused?.code).toBe("RATE_LIMITED");
    expect(refused?.headers["Retry-After"]).toBe(String(refused?.details.retryAfterSec));
  });
});

describe("BI_RATE_LIMIT_FACTOR", () => {
  it("defaults to 1, multiplies on request, and is refused in production or when not a positive integer", () => {
    expect(rateLimitFactor({})).toBe(1);
    expect(rateLimitFactor({ BI_RATE_LIMIT_FACTOR: "1000" })).toBe(1000);
    expect(() => rateLimitFactor({ BI_RATE_LIMIT_FACTOR: "1000", BI_ENV: "production" })).toThrow(/refused when BI_ENV=production/);
    for (const bad of ["0", "-2", "1.5", "lots"]) expect(() => rateLimitFactor({ BI_RATE_LIMIT_FACTOR: bad })).toThrow(/positive integer/);
  });
});
