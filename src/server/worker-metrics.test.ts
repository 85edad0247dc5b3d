import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryArgs } from "@/server/testing/built-entries";
import { freePort, startInstance, stopInstance, within } from "./testing/instance";

/**
 * `npm run worker` (src/server/worker.ts) in its own process, with BI_METRICS_PORT set, scraped as
 * Prometheus and probed as Kubernetes does. It reaches PostgreSQL through a TCP relay the test can
 * cut, which is how "database unreachable" is shown without touching the shared server.
 */
let relay: net.Server;
let relayPort: number;
let cut = false;
const sockets = new Set<net.Socket>();
let child: ChildProcess | undefined;
let output = "";
let base: string;

beforeAll(async () => {
  const target = new URL(process.env.DATABASE_URL!);
  relay = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    if (cut) return; // accepted and never answered, as a database behind a dropped route
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("data", (d) => {
      if (!cut) upstream.write(d);
    });
    upstream.on("data", (d) => {
      if (!cut) client.write(d);
    });
    client.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  relayPort = (relay.address() as net.AddressInfo).port;
  const dbUrl = new URL(target);
  dbUrl.hostname = "127.0.0.1";
  dbUrl.port = String(relayPort);

  const metricsPort = await freePort();
  base = `http://127.0.0.1:${metricsPort}`;
  child = spawn(process.execPath, [...entryArgs("src/server/worker.ts")], {
    env: {
      ...process.env,
      VITEST: "",
      DATABASE_URL: dbUrl.toString(),
      BI_METRICS_PORT: String(metricsPort),
      BI_METRICS_HOST: "127.0.0.1",
      BI_SHUTDOWN_GRACE_MS: "4000",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const up = await within(
    60_000,
    async () => {
      if (child!.exitCode !== null) throw new Error(`worker exited early:\n${output.slice(-2000)}`);
      return fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    200,
  );
  if (up === null) throw new Error(`worker did not answer /healthz:\n${output.slice(-2000)}`);
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => relay?.close(() => resolve()));
});

describe("the worker's operator endpoint (BI_METRICS_PORT)", () => {
  it("serves the process registry with the database counts the alert rules read", async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    for (const status of ["pending", "failed", "delivered", "dead"])
      expect(text).toMatch(new RegExp(`^bi_webhook_deliveries\\{status="${status}"\\} \\d+$`, "m"));
    for (const status of ["queued", "running", "completed", "failed"])
      expect(text).toMatch(new RegExp(`^bi_screening_monitor_runs\\{status="${status}"\\} \\d+$`, "m"));
    expect(text).toMatch(/^bi_screening_monitor_progress \d+$/m);
    expect(text).toMatch(/^bi_process_cpu_seconds_total /m);
    expect(text).not.toMatch(/^bi_http_requests_total\{/m);
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });

  it("answers /healthz 503 while its database does not answer, and 503 once draining", async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    cut = true;
    for (const s of sockets) s.destroy();
    const unhealthy = await within(15_000, async () => (await fetch(`${base}/healthz`)).status === 503, 250);
    expect(unhealthy, output.slice(-2000)).not.toBeNull();

    // Its job loops are now stuck on the database (the delivery loop queries every 250 ms), so after
    // SIGTERM the worker waits up to BI_SHUTDOWN_GRACE_MS for them with its port still open. A
    // draining worker answers 503 at once, without the 2 s database check.
    // The delivery loop's next ticks wait on a connection the relay never answers.
    await new Promise((r) => setTimeout(r, 1_000));
    child!.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_500);
  }, 30_000);
});

describe("an app instance that runs no jobs (BI_RUN_JOBS=false)", () => {
  it("leaves the database counts to the worker: its scrape has its requests and none of them", async () => {
    const port = await freePort();
    const inst = await startInstance({ BI_METRICS_PORT: String(port), BI_METRICS_HOST: "127.0.0.1", BI_RUN_JOBS: "false" });
    try {
      await fetch(`${inst.base}/v1/health`);
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(text).toMatch(/^bi_http_requests_total\{[^}]*route="\/v1\/health"[^}]*\} \d+$/m);
      expect(text).toMatch(/^bi_process_cpu_seconds_total /m);
      expect(text).not.toMatch(/^bi_webhook_deliveries[{ ]/m);
      expect(text).not.toMatch(/^bi_screening_monitor_(runs|progress)[{ ]/m);
      expect(text).not.toMatch(/^bi_binding_key_watch_oldest_check_age_seconds[{ ]/m);
    } finally {
      await stopInstance(inst);
    }
  }, 90_000);
});
