import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { freePort } from "../src/server/testing/instance";

/**
 * deploy/monitoring/alerts.yaml through Prometheus's own tool: `promtool check rules` (the rules
 * load) and `promtool test rules` on alerts.test.yaml (each rule fires on the series it is about
 * and stays quiet on the ones it must not page for). .ci/run installs Debian's prometheus package
 * when promtool is missing.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const RULES = "deploy/monitoring/alerts.yaml";
const TESTS = "deploy/monitoring/alerts.test.yaml";

function promtool(...args: string[]) {
  const run = spawnSync("promtool", args, { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT")
    throw new Error(
      "promtool is not installed: `apt-get install -y prometheus` (Debian's package provides it; .ci/run installs it when missing)",
    );
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

type RuleTests = { tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[] };

describe("alert rules (promtool)", () => {
  it("load", () => {
    const run = promtool("check", "rules", RULES);
    expect(run.status, run.output).toBe(0);
  });

  it("pass their unit tests", () => {
    const run = promtool("test", "rules", TESTS);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toMatch(/SUCCESS/);
  });

  it("have a firing case and a quiet case for every rule", () => {
    const rules = parse(fs.readFileSync(path.join(ROOT, RULES), "utf8")) as { groups: { rules: { alert: string }[] }[] };
    const tests = parse(fs.readFileSync(path.join(ROOT, TESTS), "utf8")) as RuleTests;
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const names = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const mine = cases.filter((c) => c.alertname === name);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${name}: no case where it fires`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${name}: no case where it stays quiet`,
      ).toBe(true);
    }
  });
});

/**
 * deploy/monitoring/scrape-config.yaml in a real Prometheus: its Kubernetes discovery replaced by a
 * file that lists the pods of the rendered manifests (every container port of the app, the worker
 * and PgBouncer) with the labels Kubernetes' pod discovery gives them, each pod on an address of
 * its own on loopback. Prometheus must scrape the app's and the worker's metrics port and nothing
 * else, and the worker going quiet must raise BindIdentityInstanceDown (pending: its `for` is 2m).
 */
describe("the shipped scrape configuration (a real Prometheus)", () => {
  type Pod = {
    name: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    ports: { name: string; containerPort: number }[];
  };
  const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_");

  function renderedPods(): Pod[] {
    const out = execFileSync("kubectl", ["kustomize", "deploy/k8s"], { cwd: ROOT, encoding: "utf8" });
    return parseAllDocuments(out)
      .map((d) => d.toJS())
      .filter((d) => d.kind === "Deployment")
      .map((d) => ({
        name: `${d.metadata.name}-0`,
        labels: d.spec.template.metadata.labels ?? {},
        annotations: d.spec.template.metadata.annotations ?? {},
        ports: d.spec.template.spec.containers.flatMap((c: { ports?: Pod["ports"] }) => c.ports ?? []),
      }));
  }

  async function prometheusApi(base: string, query: string): Promise<any[]> {
    const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(query)}`);
    return ((await res.json()) as { data: { result: any[] } }).data.result;
  }

  it("scrapes the app's and the worker's metrics ports only, and pages when one stops answering", async () => {
    const pods = renderedPods();
    const names = pods.map((p) => p.labels["app.kubernetes.io/name"]).sort();
    expect(names).toEqual(["bind-identity-app", "bind-identity-pgbouncer", "bind-identity-worker"]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-prometheus-"));
    // Each pod its own loopback address; a listener on every port, so only relabelling decides what is scraped.
    const listeners: http.Server[] = [];
    const scraped = new Map<string, number>();
    const targets = [];
    for (const [i, pod] of pods.entries()) {
      const ip = `127.0.0.${i + 2}`;
      for (const port of pod.ports) {
        const key = `${pod.labels["app.kubernetes.io/name"]}:${port.name}`;
        const server = http.createServer((_req, res) => {
          scraped.set(key, (scraped.get(key) ?? 0) + 1);
          res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end("bi_up_probe 1\n");
        });
        await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port.containerPort, ip, resolve));
        listeners.push(server);
        targets.push({
          targets: [`${ip}:${port.containerPort}`],
          labels: {
            __meta_kubernetes_namespace: "bind-identity",
            __meta_kubernetes_pod_name: pod.name,
            __meta_kubernetes_pod_ip: ip,
            __meta_kubernetes_pod_container_port_name: port.name,
            __meta_kubernetes_pod_container_port_number: String(port.containerPort),
            ...Object.fromEntries(Object.entries(pod.labels).map(([k, v]) => [`__meta_kubernetes_pod_label_${sanitize(k)}`, v])),
            ...Object.fromEntries(Object.entries(pod.annotations).map(([k, v]) => [`__meta_kubernetes_pod_annotation_${sanitize(k)}`, v])),
          },
        });
      }
    }
    const shipped = parse(fs.readFileSync(path.join(ROOT, "deploy/monitoring/scrape-config.yaml"), "utf8")) as {
      scrape_configs: Record<string, unknown>[];
    };
    fs.writeFileSync(path.join(dir, "pods.json"), JSON.stringify(targets));
    const config = {
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: [path.join(ROOT, RULES)],
      scrape_configs: shipped.scrape_configs.map(({ kubernetes_sd_configs, scrape_interval, ...job }) => ({
        ...job,
        file_sd_configs: [{ files: [path.join(dir, "pods.json")], refresh_interval: "1s" }],
      })),
    };
    fs.writeFileSync(path.join(dir, "prometheus.yml"), stringify(config));
    expect(promtool("check", "config", path.join(dir, "prometheus.yml")).status).toBe(0);

    const port = await freePort();
    const prometheus = spawn(
      "prometheus",
      [
        `--config.file=${path.join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${path.join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let log = "";
    prometheus.stderr.on("data", (d) => (log += d));
    const base = `http://127.0.0.1:${port}`;
    const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
      const deadline = Date.now() + 45_000;
      for (;;) {
        const got = await probe().catch(() => undefined);
        if (got !== undefined) return got;
        if (Date.now() > deadline) throw new Error(`${what}: not seen in 45 s\n${log.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    try {
      const up = await until("both targets up", async () => {
        const r = await prometheusApi(base, "up");
        return r.length >= 2 && r.every((s) => s.value[1] === "1") ? r : undefined;
      });
      const ipOf = (name: string) => `127.0.0.${pods.findIndex((p) => p.labels["app.kubernetes.io/name"] === name) + 2}`;
      expect(up.map((s) => `${s.metric.job} ${s.metric.app_kubernetes_io_name} ${s.metric.pod} ${s.metric.instance}`).sort()).toEqual(
        [
          `bind-identity bind-identity-app bind-identity-app-0 ${ipOf("bind-identity-app")}:9464`,
          `bind-identity bind-identity-worker bind-identity-worker-0 ${ipOf("bind-identity-worker")}:9464`,
        ].sort(),
      );
      expect([...scraped.keys()].sort()).toEqual(["bind-identity-app:metrics", "bind-identity-worker:metrics"]);

      // The worker stops answering: the rule selects its `up` series and goes pending.
      const worker = listeners.find((l) => (l.address() as { address: string }).address === ipOf("bind-identity-worker"))!;
      await new Promise<void>((resolve) => worker.close(() => resolve()));
      worker.closeAllConnections();
      const pending = await until("BindIdentityInstanceDown pending", async () => {
        const r = await prometheusApi(base, 'ALERTS{alertname="BindIdentityInstanceDown"}');
        return r.length ? r : undefined;
      });
      expect(pending.map((s) => [s.metric.app_kubernetes_io_name, s.metric.alertstate])).toEqual([["bind-identity-worker", "pending"]]);
    } finally {
      prometheus.kill("SIGTERM");
      await new Promise((r) => prometheus.once("exit", r));
      await Promise.all(listeners.map((l) => new Promise((r) => l.close(r))));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
