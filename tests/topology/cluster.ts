import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { freePort } from "../../src/server/testing/instance";
import { documentedKeys } from "../../src/server/testing/keys";
import { ROLES, type Role } from "./roles";

/**
 * The deployment of deploy/k8s as processes on loopback: every role is started with its command
 * from roles.ts and the settings of the manifests' ConfigMap that decide how processes share the
 * database (migrations left to the migration job, pools behind a transaction pooler, the API-key
 * cache on as by default), and every process of a cluster shares one set of keys, as instances of
 * one deployment share the platform's secrets.
 */
export type Cluster = { databaseUrl: string; env: Record<string, string>; dataDir: string };

/** The ConfigMap's settings a loopback cluster takes as they are (the rest name hosts, ports and ranges of a real cluster). */
const MANIFEST_SETTINGS = ["BI_MIGRATE_ON_START", "BI_DATABASE_POOLED"] as const;

export function manifestSettings(): Record<string, string> {
  const doc = parse(fs.readFileSync("deploy/k8s/configmap.yaml", "utf8")) as { data: Record<string, string> };
  return Object.fromEntries(MANIFEST_SETTINGS.map((name) => [name, doc.data[name]!]));
}

/**
 * `databaseUrl` is PostgreSQL itself; `pooledUrl` the same database through PgBouncer in
 * transaction mode, which the pools use (DATABASE_URL) as in deploy/k8s, while migrations
 * (DATABASE_MIGRATION_URL) and the API-key cache's LISTEN (DATABASE_DIRECT_URL) go direct.
 */
export function cluster(databaseUrl: string, publicUrl: string, pooledUrl: string): Cluster {
  const key = (n: number) => randomBytes(n).toString("base64");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-topology-"));
  return {
    databaseUrl,
    dataDir,
    env: {
      ...manifestSettings(),
      DATABASE_URL: pooledUrl,
      DATABASE_DIRECT_URL: databaseUrl,
      DATABASE_MIGRATION_URL: databaseUrl,
      BI_ENV: "sandbox",
      BI_PUBLIC_URL: publicUrl,
      BI_DATA_DIR: dataDir,
      ...documentedKeys(),
      NEXTAUTH_SECRET: key(36),
      TRUSTED_PROXIES: "127.0.0.1/32",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      WEBHOOK_BACKOFF_BASE_MS: "200",
      WEBHOOK_TIMEOUT_MS: "2000",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  };
}

export type Proc = { role: Role; child: ChildProcess; output: string; exited: Promise<number | null>; port?: number; base?: string };

/** Starts one process of `role` (app instances without Next: `--api-only`). */
export function startRole(c: Cluster, role: Role, extra: Record<string, string> = {}, port?: number): Proc {
  const [node, ...args]: string[] = [...ROLES[role].command];
  if (node !== "node") throw new Error("roles start with node");
  const env = { ...c.env, ...ROLES[role].env, ...extra, ...(port ? { PORT: String(port) } : {}) };
  const child = spawn(process.execPath, role === "app" ? [...args, "--api-only"] : args, {
    env: { ...process.env, VITEST: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const proc: Proc = {
    role,
    child,
    output: "",
    exited: new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ? null : code))),
    port,
    base: port ? `http://127.0.0.1:${port}` : undefined,
  };
  child.stdout!.on("data", (d) => (proc.output += d));
  child.stderr!.on("data", (d) => (proc.output += d));
  return proc;
}

export async function untilReady(p: Proc, withinMs = 90_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`${p.role} exited early:\n${p.output.slice(-3000)}`);
    try {
      if ((await fetch(`${p.base}/v1/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${p.role} not ready in time:\n${p.output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function stop(p: Proc | undefined, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return p?.child.exitCode ?? null;
  p.child.kill(signal);
  return p.exited;
}

/**
 * The reverse proxy of compose.yaml in a few lines: round robin over the upstreams whose
 * /v1/ready answers 200 (checked every 100 ms, as a load balancer's health check), the client's
 * address in X-Forwarded-For, and a request that could not connect at all sent to the next
 * upstream (it never reached the first, so that is safe for any method).
 */
export async function startProxy(upstreams: () => string[]) {
  const ready = new Map<string, boolean>();
  let stopped = false;
  const check = async () => {
    while (!stopped) {
      await Promise.all(
        upstreams().map(async (u) => {
          try {
            ready.set(u, (await fetch(`${u}/v1/ready`, { signal: AbortSignal.timeout(1000) })).ok);
          } catch {
            ready.set(u, false);
          }
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  void check();
  let turn = 0;
  const served = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const tryNext = (attempt: number) => {
        const live = upstreams().filter((u) => ready.get(u));
        const pool = live.length ? live : upstreams();
        const target = pool[turn++ % pool.length]!;
        const u = new URL(req.url ?? "/", target);
        const up = http.request(
          u,
          {
            method: req.method,
            agent: false,
            headers: { ...req.headers, host: u.host, "x-forwarded-for": req.socket.remoteAddress ?? "", connection: "close" },
          },
          (answer) => {
            served.set(target, (served.get(target) ?? 0) + 1);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        up.on("error", (err: NodeJS.ErrnoException) => {
          if (err.code === "ECONNREFUSED" && attempt < 4) return tryNext(attempt + 1);
          if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
          res.end(`proxy: ${err.code ?? err.message}`);
        });
        up.end(body);
      };
      tryNext(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: async () => {
      stopped = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A webhook receiver that answers 200 and counts each delivery id. */
export async function startReceiver() {
  const deliveries = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["x-bi-delivery-id"] ?? "");
      deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export { freePort };
