import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { compileCidrs, isValidCidr } from "../src/server/net/cidr";
import { ROLES } from "./topology/roles";

// The Dockerfile, compose.yaml and deploy/k8s start the processes of tests/topology/roles.ts, with
// the same commands and settings, so what is tested on loopback is what is deployed.

const read = (file: string) => fs.readFileSync(file, "utf8");
const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
const compose = parse(read("compose.yaml"), { merge: true }) as {
  services: Record<string, { command?: string[]; environment?: Record<string, string>; env_file?: string; image?: string }>;
};
type K8s = { kind: string; metadata: { name: string }; spec: any; data?: Record<string, string> };
const k8s: K8s[] = fs
  .readdirSync("deploy/k8s")
  .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
  .flatMap((f) => parseAllDocuments(read(`deploy/k8s/${f}`)).map((d) => d.toJS() as K8s));
const kustomization = parse(read("deploy/k8s/kustomization.yaml")) as { resources: string[] };
const configMap = k8s.find((d) => d.kind === "ConfigMap")!.data!;
const envKnown = read("src/env.ts") + read("README.md");

const containerOf = (kind: string, name: string) => {
  const doc = k8s.find((d) => d.kind === kind && d.metadata.name === name);
  expect(doc, `${kind} ${name}`).toBeDefined();
  return doc!.spec.template.spec.containers[0];
};

describe("deployment files", () => {
  it("each role's command is its npm script without the wrappers, everywhere", () => {
    for (const role of Object.values(ROLES)) {
      // `npm run serve` is `tsx src/server/main.ts` (plus NEXT_TELEMETRY_DISABLED, set in the image).
      expect(pkg.scripts[role.script]).toContain(`tsx ${role.command.at(-1)}`);
    }
    const dockerCmd = /^CMD (\[.*\])$/m.exec(read("Dockerfile"))?.[1];
    expect(JSON.parse(dockerCmd!)).toEqual(ROLES.app.command);
    expect(compose.services.migrate!.command).toEqual(ROLES.migrate.command);
    expect(compose.services["app-1"]!.command).toEqual(ROLES.app.command);
    expect(compose.services["app-2"]!.command).toEqual(ROLES.app.command);
    expect(compose.services.worker!.command).toEqual(ROLES.worker.command);
    expect(containerOf("Job", "bind-identity-migrate").command).toEqual(ROLES.migrate.command);
    expect(containerOf("Deployment", "bind-identity-app").command).toEqual(ROLES.app.command);
    expect(containerOf("Deployment", "bind-identity-worker").command).toEqual(ROLES.worker.command);
  });

  it("app instances get the topology's settings in compose and Kubernetes, and only settings the service knows", () => {
    for (const [name, value] of Object.entries(ROLES.app.env)) {
      expect(compose.services["app-1"]!.environment![name], `compose ${name}`).toBe(value);
      expect(configMap[name], `ConfigMap ${name}`).toBe(value);
    }
    for (const name of [...Object.keys(configMap), ...Object.keys(compose.services["app-1"]!.environment!)])
      expect(envKnown, `${name} is documented and parsed`).toContain(name);
    expect(configMap.BI_ENV).toBe("production");
    expect(compose.services["app-1"]!.environment!.BI_ENV).toBe("production");
  });

  it("probes ask readiness and liveness of the right routes, and stopping has time to drain", () => {
    const app = containerOf("Deployment", "bind-identity-app");
    expect(app.readinessProbe.httpGet.path).toBe("/v1/ready");
    expect(app.livenessProbe.httpGet.path).toBe("/v1/health");
    const drainSec = (Number(configMap.BI_SHUTDOWN_DELAY_MS) + Number(configMap.BI_SHUTDOWN_GRACE_MS)) / 1000;
    const appSpec = k8s.find((d) => d.kind === "Deployment" && d.metadata.name === "bind-identity-app")!.spec;
    expect(appSpec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(drainSec);
    expect(appSpec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(k8s.some((d) => d.kind === "PodDisruptionBudget")).toBe(true);
    expect(k8s.some((d) => d.kind === "HorizontalPodAutoscaler")).toBe(true);
    expect(read("Dockerfile")).toMatch(/HEALTHCHECK[\s\S]*\/v1\/ready/);
  });

  it("keeps secrets out of the image and the repository: they come from the platform", () => {
    const dockerfile = read("Dockerfile");
    for (const secret of ["BI_ENCRYPTION_KEY", "BI_HASH_KEY", "BI_ISSUER_SIGNING_KEY", "NEXTAUTH_SECRET", "DATABASE_URL"]) {
      expect(dockerfile).not.toMatch(new RegExp(`^\\s*(ENV|ARG)\\b.*${secret}`, "m"));
      expect(configMap[secret], `${secret} in the ConfigMap`).toBeUndefined();
    }
    expect(read(".dockerignore")).toMatch(/^\.env$/m);
    expect(read(".dockerignore")).toMatch(/^deploy\/compose\/\*\.env$/m);
    expect(compose.services["app-1"]!.env_file).toBe("deploy/compose/production.env");
    expect(fs.existsSync("deploy/compose/production.env")).toBe(false);
    // The example Secret documents the keys and is never applied by kustomize.
    expect(kustomization.resources).not.toContain("secret.example.yaml");
    expect(read("Dockerfile")).toMatch(/^USER node$/m);
  });
});

describe("Kubernetes: who reaches the pods, and what they run as", () => {
  const operations = read("docs/operations.md");
  const workloads = k8s.filter((d) => d.kind === "Deployment" || d.kind === "Job");
  const policies = k8s.filter((d) => d.kind === "NetworkPolicy");
  const byName = (name: string) => workloads.find((d) => d.metadata.name === name)!;
  const [app, worker, migrate] = ["bind-identity-app", "bind-identity-worker", "bind-identity-migrate"].map(byName);
  // Addresses a pod, a Service, a node or the cloud's metadata endpoint has in common clusters, and two public ones.
  const inCluster = ["10.42.0.7", "10.96.0.10", "172.17.0.2", "192.168.1.10", "100.64.0.5", "169.254.169.254"];
  const publicAddresses = ["93.184.216.34", "1.1.1.1"];

  /** The one NetworkPolicy selecting a workload's pods. */
  const policyOf = (d: K8s) => {
    const labels = d.spec.template.metadata.labels as Record<string, string>;
    const found = policies.filter((p) =>
      Object.entries((p.spec.podSelector.matchLabels ?? {}) as Record<string, string>).every(([k, v]) => labels[k] === v),
    );
    expect(
      found.map((p) => p.metadata.name),
      d.metadata.name,
    ).toHaveLength(1);
    return found[0]!.spec;
  };
  type Rule = { to?: any[]; from?: any[]; ports?: { protocol?: string; port: number | string }[] };
  const portsOf = (r: Rule) => (r.ports ?? []).map((p) => `${p.protocol ?? "TCP"}/${p.port}`);
  /** Whether an egress rule with an ipBlock lets a pod reach ip:port over TCP. */
  const egressAllows = (spec: any, ip: string, port: number) =>
    (spec.egress as Rule[]).some(
      (r) =>
        (!r.ports || r.ports.some((p) => String(p.port) === String(port) && (p.protocol ?? "TCP") === "TCP")) &&
        (r.to ?? []).some(
          (t) => t.ipBlock && compileCidrs([t.ipBlock.cidr]).contains(ip) && !compileCidrs(t.ipBlock.except ?? []).contains(ip),
        ),
    );

  it("believes X-Forwarded-For only from the ingress controller: TRUSTED_PROXIES is a narrow placeholder the operator sets", () => {
    const proxies = configMap.TRUSTED_PROXIES!.split(",").map((c) => c.trim());
    for (const cidr of proxies) {
      expect(isValidCidr(cidr), cidr).toBe(true);
      expect(Number(cidr.split("/")[1] ?? 32), `${cidr} is wider than an ingress controller's addresses`).toBeGreaterThanOrEqual(24);
    }
    const trusted = compileCidrs(proxies);
    for (const ip of inCluster) expect(trusted.contains(ip), `${ip} may set X-Forwarded-For`).toBe(false);
    // The operator is told to set it, and to what.
    expect(operations).toContain(`\`${configMap.TRUSTED_PROXIES}\``);
    expect(operations).toMatch(/\*\*`TRUSTED_PROXIES`\*\*[\s\S]*ingress controller's pods/);
  });

  it("binds the operator's metrics to the pod's own address, not every interface", () => {
    expect(configMap.BI_METRICS_HOST, "BI_METRICS_HOST in the ConfigMap").toBeUndefined();
    const env = containerOf("Deployment", "bind-identity-app").env as { name: string; valueFrom?: any; value?: string }[];
    expect(env.find((e) => e.name === "BI_METRICS_HOST")).toEqual({
      name: "BI_METRICS_HOST",
      valueFrom: { fieldRef: { fieldPath: "status.podIP" } },
    });
  });

  it("runs every pod under the restricted Pod Security Standard, the migration Job exactly like the app", () => {
    expect(workloads.map((d) => d.metadata.name).sort()).toEqual(["bind-identity-app", "bind-identity-migrate", "bind-identity-worker"]);
    for (const d of workloads) {
      const pod = d.spec.template.spec;
      const name = d.metadata.name;
      expect(pod.automountServiceAccountToken, name).toBe(false);
      expect(pod.securityContext, name).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      expect(pod.securityContext.runAsUser, name).toBeGreaterThan(0);
      for (const host of ["hostNetwork", "hostPID", "hostIPC"]) expect(pod[host], `${name} ${host}`).toBeFalsy();
      const volumes = (pod.volumes ?? []) as { name: string; emptyDir?: unknown }[];
      for (const v of volumes) expect(v.emptyDir, `${name} volume ${v.name}`).toBeDefined();
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect(c.securityContext, `${name}/${c.name}`).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        // A read-only root: scratch space (tsx's compile cache) is a volume.
        expect(
          (c.volumeMounts ?? []).map((m: { mountPath: string }) => m.mountPath),
          `${name}/${c.name}`,
        ).toContain("/tmp");
        for (const m of c.volumeMounts ?? []) expect(volumes.map((v) => v.name)).toContain(m.name);
      }
    }
    expect(migrate!.spec.template.spec.securityContext).toEqual(app!.spec.template.spec.securityContext);
    expect(containerOf("Job", "bind-identity-migrate").securityContext).toEqual(
      containerOf("Deployment", "bind-identity-app").securityContext,
    );
    expect(operations).toContain("pod-security.kubernetes.io/enforce=restricted");
  });

  it("NetworkPolicies: the app only from the ingress controller, metrics only from monitoring, the others from nobody", () => {
    expect(kustomization.resources).toContain("network-policy.yaml");
    const namespaceOf = (peer: any) => {
      // Only whole namespaces by name: no ipBlock, no empty selector (which would admit everyone).
      expect(Object.keys(peer)).toEqual(["namespaceSelector"]);
      return peer.namespaceSelector.matchLabels["kubernetes.io/metadata.name"] as string;
    };
    const admitted = (spec: any) => {
      const out: Record<string, string[]> = {};
      for (const r of (spec.ingress ?? []) as Rule[]) {
        expect(r.from?.length, "an ingress rule without from admits every pod").toBeGreaterThan(0);
        expect(r.ports?.length, "an ingress rule without ports admits every port").toBeGreaterThan(0);
        for (const port of portsOf(r)) out[port] = [...(out[port] ?? []), ...r.from!.map(namespaceOf)];
      }
      return out;
    };
    for (const d of workloads) expect(policyOf(d).policyTypes, d.metadata.name).toEqual(["Ingress", "Egress"]);
    expect(admitted(policyOf(app!))).toEqual({ "TCP/http": ["ingress-nginx"], "TCP/metrics": ["monitoring"] });
    const appPorts = containerOf("Deployment", "bind-identity-app").ports.map((p: { name: string }) => p.name);
    expect(appPorts.sort()).toEqual(["http", "metrics"]);
    expect(admitted(policyOf(worker!))).toEqual({});
    expect(admitted(policyOf(migrate!))).toEqual({});
    for (const ns of ["ingress-nginx", "monitoring"]) expect(operations, ns).toContain(`(\`${ns}\`)`);
  });

  it("NetworkPolicies: egress to DNS, PostgreSQL and public addresses only; the migration to DNS and PostgreSQL alone", () => {
    const database = (spec: any) => {
      const rules = (spec.egress as Rule[]).filter((r) => portsOf(r).includes("TCP/5432"));
      expect(rules).toHaveLength(1);
      expect(portsOf(rules[0]!)).toEqual(["TCP/5432"]);
      const cidr = rules[0]!.to![0].ipBlock.cidr as string;
      expect(cidr.endsWith("/32"), `${cidr}: PostgreSQL's own address`).toBe(true);
      return cidr.split("/")[0]!;
    };
    for (const d of [app!, worker!, migrate!]) {
      const spec = policyOf(d);
      const name = d.metadata.name;
      for (const r of spec.egress as Rule[])
        expect(r.to?.length, `${name}: an egress rule without to reaches everything`).toBeGreaterThan(0);
      const dns = (spec.egress as Rule[]).filter((r) => portsOf(r).includes("UDP/53"));
      expect(
        dns.map((r) => [portsOf(r), r.to]),
        name,
      ).toEqual([
        [
          ["UDP/53", "TCP/53"],
          [
            {
              namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
              podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
            },
          ],
        ],
      ]);
      const db = database(spec);
      expect(operations, name).toContain(`\`${db}/32\``);
      expect(egressAllows(spec, db, 5432), name).toBe(true);
      for (const ip of inCluster) {
        for (const port of [5432, 443, 80, 3000]) expect(egressAllows(spec, ip, port), `${name} → ${ip}:${port}`).toBe(false);
      }
    }
    // The app and the worker call providers and webhook receivers on public addresses.
    for (const d of [app!, worker!])
      for (const ip of publicAddresses) expect(egressAllows(policyOf(d), ip, 443), `${d.metadata.name} → ${ip}`).toBe(true);
    // The migration reaches PostgreSQL and DNS, nothing else.
    expect((policyOf(migrate!).egress as Rule[]).length).toBe(2);
    for (const ip of publicAddresses) expect(egressAllows(policyOf(migrate!), ip, 443)).toBe(false);
  });
});

describe("alert rules and the dashboard", () => {
  it("parse, and name only metrics the service exports", async () => {
    const { metrics } = await import("../src/server/metrics");
    const exported = new Set((await metrics().registry.getMetricsAsJSON()).map((m) => m.name));
    const sources = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = `${dir}/${e.name}`;
        if (e.isDirectory()) return e.name === "generated" ? [] : sources(p);
        return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [read(p)] : [];
      });
    for (const text of sources("src/server")) for (const m of text.matchAll(/name: "(bi_[a-z0-9_]+)"/g)) exported.add(m[1]!);

    const rules = parse(read("deploy/monitoring/alerts.yaml")) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const dashboard = JSON.parse(read("deploy/monitoring/grafana-dashboard.json")) as { panels: { targets: { expr: string }[] }[] };
    const exprs = [
      ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ];
    expect(exprs.length).toBeGreaterThan(10);
    for (const expr of exprs)
      for (const m of expr.matchAll(/\bbi_[a-z0-9_]+/g)) {
        const name = m[0].replace(/_(bucket|sum|count)$/, "");
        expect(exported.has(name), `${name} in "${expr}"`).toBe(true);
      }
  });
});
