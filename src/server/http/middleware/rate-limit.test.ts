import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../db/client";
import { logger } from "../../log";
import { createTestOrg, type TestOrg } from "../../testing/harness";
import { compose } from "../pipeline";
import type { PipelineState, RouteDef } from "../types";
import { ipBackstop } from "./rate-limit";

type Instance = { base: string; child: ChildProcess; output: string };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A real `--api-only` instance on the test database, as a second machine behind a load balancer would run it. */
async function startInstance(): Promise<Instance> {
  const port = await freePort();
  const child = spawn("node_modules/.bin/tsx", ["src/server/main.ts", "--api-only"], {
    env: {
      ...process.env,
      DATABASE_URL: process.env.DATABASE_URL,
      PORT: String(port),
      HOST: "127.0.0.1",
      BI_RUN_JOBS: "false",
      BI_DATA_DIR: process.env.BI_DATA_DIR,
      LOG_LEVEL: "silent",
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const inst: Instance = { base: `http://127.0.0.1:${port}`, child, output: "" };
  child.stdout!.on("data", (d) => (inst.output += d));
  child.stderr!.on("data", (d) => (inst.output += d));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`instance exited early:\n${inst.output.slice(-2000)}`);
    try {
      if ((await fetch(`${inst.base}/v1/health`)).ok) return inst;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`instance did not answer in time:\n${inst.output.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stopInstance(inst: Instance | undefined) {
  if (!inst?.child.pid || inst.child.exitCode !== null) return;
  try {
    process.kill(-inst.child.pid, "SIGTERM"); // the process group this test started (tsx and its node child)
  } catch {
    // already gone
  }
}

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

describe("plan rate limit across two instances", () => {
  let a: Instance | undefined;
  let b: Instance | undefined;
  let org: TestOrg;

  beforeAll(async () => {
    [a, b] = await Promise.all([startInstance(), startInstance()]);
    org = await createTestOrg({ plan: "builder" });
  }, 120_000);

  afterAll(async () => {
    stopInstance(a);
    stopInstance(b);
    await new Promise((r) => setTimeout(r, 300));
  });

  const get = async (i: number, key: string): Promise<Answer> => {
    const inst = i % 2 === 0 ? a! : b!;
    const res = await fetch(`${inst.base}/v1/tenant`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, headers: res.headers, body: await res.json(), instance: i % 2 };
  };

  it("lets a Builder organization make exactly 120 requests a minute, counted across both instances", async () => {
    await awaitFreshWindow();
    const first = [];
    for (let i = 0; i < 10; i++) first.push(await get(i, org.apiKey));
    const rest = await pool(120, 8, (i) => get(i + 10, org.apiKey));
    const all = [...first, ...rest];

    // One sequential run shows the remaining quota going down, whichever instance answers.
    expect(first.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(first.map((r) => Number(r.headers.get("x-ratelimit-plan-remaining")))).toEqual([119, 118, 117, 116, 115, 114, 113, 112, 111, 110]);

    const ok = all.filter((r) => r.status === 200);
    const limited = all.filter((r) => r.status === 429);
    expect(ok).toHaveLength(120);
    expect(limited).toHaveLength(10);
    expect(new Set(ok.map((r) => r.instance))).toEqual(new Set([0, 1]));
    expect(new Set(limited.map((r) => r.instance))).toEqual(new Set([0, 1]));
    // Every hit was counted once: the 120 answers saw each remaining value from 119 down to 0 once.
    expect(ok.map((r) => Number(r.headers.get("x-ratelimit-plan-remaining"))).sort((x, y) => x - y)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    for (const r of ok) expect(r.headers.get("x-ratelimit-plan-limit")).toBe("120");

    for (const r of limited) {
      expect(r.body.error.code).toBe("RATE_LIMITED");
      const retryAfter = r.body.error.details.retryAfterSec;
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect(r.headers.get("retry-after")).toBe(String(retryAfter));
      expect(r.headers.get("x-ratelimit-plan-reset")).toBe(String(retryAfter));
      expect(r.headers.get("x-ratelimit-plan-remaining")).toBe("0");
      expect(r.body.error.correlationId).toBe(r.headers.get("x-correlation-id"));
    }

    const db = await getDb();
    const windows = await db.rateLimitWindow.findMany({ where: { bucket: `plan:${org.orgId}` } });
    expect(windows.map((w) => w.count)).toEqual([130]);
  }, 60_000);

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
