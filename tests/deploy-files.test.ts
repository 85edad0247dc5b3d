import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Job } from "kubernetes-models/batch/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Secret, Service } from "kubernetes-models/v1";
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
type K8s = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
};
/** What `kubectl apply -k <dir>` applies: the manifests as kustomize renders them. */
const render = (dir: string): K8s[] => {
  let out: string;
  try {
    out = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    throw new Error(`\`kubectl kustomize ${dir}\` failed (kubectl renders deploy/k8s in this test): ${(err as Error).message}`);
  }
  return parseAllDocuments(out).map((d) => d.toJS() as K8s);
};
const k8s: K8s[] = render("deploy/k8s");
/** Every manifest file as written, the example Secrets included (they are not rendered). */
const k8sFiles: K8s[] = fs
  .readdirSync("deploy/k8s")
  .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
  .flatMap((f) => parseAllDocuments(read(`deploy/k8s/${f}`)).map((d) => d.toJS() as K8s));
const kustomization = parse(read("deploy/k8s/kustomization.yaml")) as {
  resources: string[];
  images: { name: string; newName: string; newTag: string }[];
};
const configMap = k8s.find((d) => d.kind === "ConfigMap" && d.metadata.name === "bind-identity-config")!.data!;
/** The release's migration Job is named after the image tag (kustomization.yaml's replacement). */
const MIGRATE_JOB = `bind-identity-migrate-${kustomization.images.find((i) => i.name === "bind-identity")!.newTag}`;
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
    // The long-running ones: the shell execs node itself, so a SIGTERM sent to npm reaches the
    // service (src/server/npm-script-signals.test.ts), with no tsx wrapper process in between.
    for (const role of [ROLES.app, ROLES.worker])
      expect(pkg.scripts[role.script]).toMatch(new RegExp(`(^|\\s)exec ${role.command.join(" ")}$`));
    const dockerCmd = /^CMD (\[.*\])$/m.exec(read("Dockerfile"))?.[1];
    expect(JSON.parse(dockerCmd!)).toEqual(ROLES.app.command);
    expect(compose.services.migrate!.command).toEqual(ROLES.migrate.command);
    expect(compose.services["app-1"]!.command).toEqual(ROLES.app.command);
    expect(compose.services["app-2"]!.command).toEqual(ROLES.app.command);
    expect(compose.services.worker!.command).toEqual(ROLES.worker.command);
    expect(containerOf("Job", MIGRATE_JOB).command).toEqual(ROLES.migrate.command);
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
  const [app, worker, migrate, pgbouncer] = ["bind-identity-app", "bind-identity-worker", MIGRATE_JOB, "bind-identity-pgbouncer"].map(
    byName,
  );
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
    expect(workloads.map((d) => d.metadata.name).sort()).toEqual(
      ["bind-identity-app", MIGRATE_JOB, "bind-identity-pgbouncer", "bind-identity-worker"].sort(),
    );
    for (const d of workloads) {
      const pod = d.spec.template.spec;
      const name = d.metadata.name;
      expect(pod.automountServiceAccountToken, name).toBe(false);
      expect(pod.securityContext, name).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      expect(pod.securityContext.runAsUser, name).toBeGreaterThan(0);
      for (const host of ["hostNetwork", "hostPID", "hostIPC"]) expect(pod[host], `${name} ${host}`).toBeFalsy();
      // Scratch space, or configuration and secrets mounted read-only: never a host path.
      const volumes = (pod.volumes ?? []) as { name: string; emptyDir?: unknown; configMap?: unknown; secret?: unknown }[];
      for (const v of volumes) {
        expect(
          Object.keys(v).filter((k) => k !== "name"),
          `${name} volume ${v.name}`,
        ).toHaveLength(1);
        expect(v.emptyDir ?? v.configMap ?? v.secret, `${name} volume ${v.name}`).toBeDefined();
      }
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
    expect(containerOf("Job", MIGRATE_JOB).securityContext).toEqual(containerOf("Deployment", "bind-identity-app").securityContext);
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
    // The worker: its metrics and /healthz to monitoring (the kubelet's probes are not subject to policies).
    expect(admitted(policyOf(worker!))).toEqual({ "TCP/metrics": ["monitoring"] });
    expect(admitted(policyOf(migrate!))).toEqual({});
    // PgBouncer: only the app's and the worker's pods, on its port.
    expect(policyOf(pgbouncer!).ingress).toEqual([
      {
        from: [
          { podSelector: { matchLabels: { "app.kubernetes.io/name": "bind-identity-app" } } },
          { podSelector: { matchLabels: { "app.kubernetes.io/name": "bind-identity-worker" } } },
        ],
        ports: [{ protocol: "TCP", port: "pgbouncer" }],
      },
    ]);
    expect(containerOf("Deployment", "bind-identity-pgbouncer").ports.map((p: { name: string }) => p.name)).toEqual(["pgbouncer"]);
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
    for (const d of [app!, worker!, migrate!, pgbouncer!]) {
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
    // The migration and PgBouncer reach PostgreSQL and DNS, nothing else.
    for (const d of [migrate!, pgbouncer!]) {
      expect((policyOf(d).egress as Rule[]).length, d.metadata.name).toBe(2);
      for (const ip of publicAddresses) expect(egressAllows(policyOf(d), ip, 443), d.metadata.name).toBe(false);
    }
    // The app and the worker reach PgBouncer's pods on its port (DATABASE_URL).
    for (const d of [app!, worker!])
      expect(
        (policyOf(d).egress as Rule[]).filter((r) => r.to?.some((t) => t.podSelector && !t.namespaceSelector)),
        d.metadata.name,
      ).toEqual([
        {
          to: [{ podSelector: { matchLabels: { "app.kubernetes.io/name": "bind-identity-pgbouncer" } } }],
          ports: [{ protocol: "TCP", port: 6432 }],
        },
      ]);
  });
});

describe("Kubernetes: releases, database addresses, probes, metrics and connections", () => {
  const workload = (kind: string, name: string) => {
    const doc = k8s.find((d) => d.kind === kind && d.metadata.name === name);
    expect(doc, `${kind} ${name}`).toBeDefined();
    return doc!;
  };
  const tag = kustomization.images.find((i) => i.name === "bind-identity")!.newTag;
  const secretExample = k8sFiles.find((d) => d.kind === "Secret" && d.metadata.name === "bind-identity-secrets")!.stringData!;
  const pgbouncerIni = workload("ConfigMap", "bind-identity-pgbouncer").data!["pgbouncer.ini"]!;
  const ini = (key: string) => new RegExp(`^${key}\\s*=\\s*(.*)$`, "m").exec(pgbouncerIni)?.[1]?.trim();
  type Container = {
    name: string;
    image: string;
    ports?: { name: string; containerPort: number }[];
    env?: { name: string; value?: string; valueFrom?: unknown }[];
    envFrom?: unknown[];
    readinessProbe?: any;
    livenessProbe?: any;
    startupProbe?: any;
  };

  it("validates every manifest, rendered and example, against Kubernetes' schemas (kubernetes-models)", () => {
    const models: Record<string, new (d: any) => { validate(): void }> = {
      "v1/ConfigMap": ConfigMap,
      "v1/Secret": Secret,
      "v1/Service": Service,
      "apps/v1/Deployment": Deployment,
      "batch/v1/Job": Job,
      "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
      "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
      "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
    };
    const docs = [...k8s, ...k8sFiles.filter((d) => d.kind === "Secret")];
    expect(docs.length).toBeGreaterThan(10);
    for (const d of docs) {
      const Model = models[`${d.apiVersion}/${d.kind}`];
      expect(Model, `${d.apiVersion} ${d.kind} has a schema here`).toBeDefined();
      expect(() => new Model!(d).validate(), `${d.kind} ${d.metadata.name}`).not.toThrow();
    }
    // The schemas do refuse a wrong manifest: a probe's timeout given as a string.
    const broken = structuredClone(workload("Deployment", "bind-identity-app"));
    broken.spec.template.spec.containers[0].readinessProbe.timeoutSeconds = "3";
    expect(() => new Deployment(broken).validate()).toThrow(/timeoutSeconds/);
  });

  it("one migration Job per release: named after the image tag, with a deadline and a retry limit, on the migration address", () => {
    const jobs = k8s.filter((d) => d.kind === "Job");
    expect(jobs.map((j) => j.metadata.name)).toEqual([MIGRATE_JOB]);
    const job = jobs[0]!;
    expect(job.spec.template.spec.containers[0].image).toMatch(new RegExp(`:${tag.replaceAll(".", "\\.")}$`));
    // Long enough for one attempt's wait on another migrator's lock (BI_MIGRATION_LOCK_WAIT_MS, 300 s), bounded.
    expect(job.spec.activeDeadlineSeconds).toBeGreaterThanOrEqual(300);
    expect(job.spec.activeDeadlineSeconds).toBeLessThanOrEqual(3600);
    expect(job.spec.backoffLimit).toBeGreaterThanOrEqual(1);
    expect(job.spec.backoffLimit).toBeLessThanOrEqual(6);
    expect(job.spec.template.spec.restartPolicy).toBe("Never");

    // The next release renders another Job (the finished one's pod template cannot be changed by
    // `kubectl apply`): the same files with only the tag changed.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-k8s-release-"));
    try {
      fs.cpSync("deploy/k8s", dir, { recursive: true });
      const k = read("deploy/k8s/kustomization.yaml");
      expect(k).toContain(`newTag: "${tag}"`);
      fs.writeFileSync(path.join(dir, "kustomization.yaml"), k.replace(`newTag: "${tag}"`, 'newTag: "9.8.7"'));
      const next = render(dir).filter((d) => d.kind === "Job");
      expect(next.map((j) => j.metadata.name)).toEqual(["bind-identity-migrate-9.8.7"]);
      expect(next[0]!.spec.template.spec.containers[0].image).toMatch(/:9\.8\.7$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // db-migrate.ts migrates DATABASE_MIGRATION_URL (the Secret's direct address) when it is set.
    expect(containerOf("Job", MIGRATE_JOB).envFrom).toContainEqual({ secretRef: { name: "bind-identity-secrets" } });
    expect(read("src/server/db/client.ts")).toContain("e.DATABASE_MIGRATION_URL ?? e.DATABASE_URL");
  });

  it("the app and the worker never migrate; the app takes traffic once the Job has migrated (/v1/ready)", () => {
    expect(configMap.BI_MIGRATE_ON_START).toBe("false");
    for (const name of ["bind-identity-app", "bind-identity-worker"]) {
      const c = containerOf("Deployment", name) as Container;
      expect(c.envFrom, name).toContainEqual({ configMapRef: { name: "bind-identity-config" } });
      expect((c.env ?? []).map((e) => e.name)).not.toContain("BI_MIGRATE_ON_START");
    }
    // Until every migration is applied /v1/ready answers 503, and a rollout replaces an old pod only
    // once a new one is ready: the new release takes no traffic before its Job has run.
    expect(containerOf("Deployment", "bind-identity-app").readinessProbe.httpGet.path).toBe("/v1/ready");
    expect(read("src/server/http/routes/ops.ts")).toContain("200 once the database answers and every migration is applied, else 503");
    expect(workload("Deployment", "bind-identity-app").spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(read("docs/operations.md")).toMatch(/no init\s+container waits for it/);
  });

  it("one database address per role: the pools through PgBouncer (transaction mode), LISTEN and migrations to PostgreSQL", () => {
    expect(kustomization.resources).toContain("pgbouncer.yaml");
    expect(configMap.BI_DATABASE_POOLED).toBe("true");
    expect(ini("pool_mode")).toBe("transaction");
    const url = (key: string) => {
      expect(secretExample[key], key).toBeDefined();
      return new URL(secretExample[key]!);
    };
    const service = workload("Service", "bind-identity-pgbouncer");
    const pooler = containerOf("Deployment", "bind-identity-pgbouncer") as Container;
    expect(pooler.ports).toEqual([{ name: "pgbouncer", containerPort: Number(ini("listen_port")) }]);
    expect(service.spec.ports).toEqual([{ name: "pgbouncer", port: Number(ini("listen_port")), targetPort: "pgbouncer" }]);
    expect(service.spec.selector).toEqual(workload("Deployment", "bind-identity-pgbouncer").spec.template.metadata.labels);
    // DATABASE_URL: PgBouncer's Service.
    expect(url("DATABASE_URL").hostname).toBe(service.metadata.name);
    expect(Number(url("DATABASE_URL").port)).toBe(service.spec.ports[0].port);
    // DATABASE_DIRECT_URL and DATABASE_MIGRATION_URL: the PostgreSQL PgBouncer itself connects to.
    const upstream = /^(\S+)\s*=\s*host=(\S+) port=(\d+) dbname=(\S+)$/m.exec(pgbouncerIni);
    expect(upstream, "pgbouncer.ini [databases]").not.toBeNull();
    for (const key of ["DATABASE_URL", "DATABASE_DIRECT_URL", "DATABASE_MIGRATION_URL"])
      expect(url(key).pathname, key).toBe(`/${upstream![1]}`);
    for (const key of ["DATABASE_DIRECT_URL", "DATABASE_MIGRATION_URL"]) {
      expect(url(key).hostname, key).toBe(upstream![2]);
      expect(url(key).port, key).toBe(upstream![3]);
    }
    expect(upstream![4]).toBe(upstream![1]);
    // PgBouncer's users come from a Secret of their own, mounted where pgbouncer.ini reads them.
    const auth = workload("Deployment", "bind-identity-pgbouncer").spec.template.spec.volumes.find(
      (v: { secret?: { secretName: string } }) => v.secret,
    );
    expect(auth.secret.secretName).toBe("bind-identity-pgbouncer");
    expect(k8sFiles.some((d) => d.kind === "Secret" && d.metadata.name === "bind-identity-pgbouncer")).toBe(true);
    expect(ini("auth_file")!.startsWith("/etc/pgbouncer/auth/")).toBe(true);
    // Each is a setting the service parses and documents.
    for (const key of ["DATABASE_URL", "DATABASE_DIRECT_URL", "DATABASE_MIGRATION_URL", "BI_DATABASE_POOLED"])
      expect(envKnown, key).toContain(key);
  });

  it("no `replicas` on a Deployment that an autoscaler scales", () => {
    const hpas = k8s.filter((d) => d.kind === "HorizontalPodAutoscaler");
    expect(hpas.length).toBeGreaterThan(0);
    for (const h of hpas) {
      const target = workload(h.spec.scaleTargetRef.kind, h.spec.scaleTargetRef.name);
      expect(target.spec.replicas, `${target.metadata.name} is scaled by ${h.metadata.name}`).toBeUndefined();
    }
  });

  it("probes survive a slow database: timeouts of 3 s or more, three misses in a row, liveness never asks the database", () => {
    // The endpoints that answer 503 when the database is slow or gone.
    const databaseTied = ["/v1/ready", "/healthz"];
    const deployments = k8s.filter((d) => d.kind === "Deployment");
    expect(deployments.length).toBe(3);
    for (const d of deployments)
      for (const c of d.spec.template.spec.containers as Container[]) {
        const name = `${d.metadata.name}/${c.name}`;
        expect(c.readinessProbe, name).toBeDefined();
        expect(c.livenessProbe, name).toBeDefined();
        for (const [kind, probe] of Object.entries({ readiness: c.readinessProbe, liveness: c.livenessProbe, startup: c.startupProbe })) {
          if (!probe) continue;
          expect(probe.timeoutSeconds, `${name} ${kind} timeoutSeconds`).toBeGreaterThanOrEqual(3);
          expect(probe.failureThreshold, `${name} ${kind} failureThreshold`).toBeGreaterThanOrEqual(3);
        }
        expect(databaseTied, `${name} liveness`).not.toContain(c.livenessProbe.httpGet?.path);
        expect(databaseTied, `${name} startup`).not.toContain(c.startupProbe?.httpGet?.path);
      }
    // The app's liveness route answers without touching anything.
    expect(containerOf("Deployment", "bind-identity-app").livenessProbe.httpGet.path).toBe("/v1/health");
    expect(read("src/server/http/routes/ops.ts")).toMatch(/path: "\/v1\/health",[\s\S]*?handler: async \(\) => \(\{ status: "ok" \}\)/);
    // The worker's readiness: GET /healthz on BI_METRICS_PORT, 9464.
    const worker = containerOf("Deployment", "bind-identity-worker") as Container;
    expect(worker.env).toContainEqual({ name: "BI_METRICS_PORT", value: "9464" });
    expect(worker.readinessProbe.httpGet.path).toBe("/healthz");
    expect(worker.ports!.find((p) => p.name === worker.readinessProbe.httpGet.port)?.containerPort).toBe(9464);
    expect(worker.ports!.find((p) => p.name === worker.livenessProbe.tcpSocket?.port)?.containerPort).toBe(9464);
  });

  it("Prometheus scrapes the app's and the worker's metrics ports, on the pod's own address", () => {
    for (const name of ["bind-identity-app", "bind-identity-worker"]) {
      const template = workload("Deployment", name).spec.template;
      const c = template.spec.containers[0] as Container;
      const port = c.ports!.find((p) => p.name === "metrics")?.containerPort;
      expect(port, name).toBeDefined();
      expect(template.metadata.annotations, name).toEqual({
        "prometheus.io/scrape": "true",
        "prometheus.io/port": String(port),
        "prometheus.io/path": "/metrics",
      });
      const envPort = (c.env ?? []).find((e) => e.name === "BI_METRICS_PORT")?.value ?? configMap.BI_METRICS_PORT;
      expect(Number(envPort), name).toBe(port);
      expect(c.env, name).toContainEqual({ name: "BI_METRICS_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } });
    }
  });

  it("connections: every pool at the autoscaler's maximum fits PgBouncer, and PgBouncer fits max_connections (docs/scaling.md)", () => {
    const poolSize = Number(/new pg\.Pool\(\{[^}]*\bmax: (\d+)/.exec(read("src/server/db/client.ts"))?.[1]);
    expect(poolSize).toBeGreaterThan(0);
    const appMax = workload("HorizontalPodAutoscaler", "bind-identity-app").spec.maxReplicas as number;
    const workers = workload("Deployment", "bind-identity-worker").spec.replicas as number;
    const poolers = workload("Deployment", "bind-identity-pgbouncer").spec.replicas as number;
    // Client side: every process's pool, and the two sessions of its audit verification's threads
    // (services/audit/segment-threads.ts), on one PgBouncer pod (the other one drained).
    const threadSessions = (
      /workers: \(Worker \| null\)\[\] = \[([^\]]*)\]/.exec(read("src/server/services/audit/segment-threads.ts"))?.[1] ?? ""
    )
      .split(",")
      .filter((w) => w.trim() === "null").length;
    expect(threadSessions).toBe(2);
    const perProcess = poolSize + threadSessions;
    const clients = (appMax + workers) * perProcess;
    expect(clients).toBeLessThanOrEqual(Number(ini("max_client_conn")));
    // Server side: what the PgBouncer pods open, plus the direct sessions (one LISTEN per process,
    // the migration), plus PostgreSQL's reserved ones, within max_connections.
    const perPooler = Math.min(Number(ini("default_pool_size")), Number(ini("max_db_connections")));
    const direct = appMax + workers + 1;
    const doc = read("docs/scaling.md");
    const maxConnections = Number(/`max_connections` = (\d+)/.exec(doc)?.[1]);
    const reserved = Number(/`superuser_reserved_connections` = (\d+)/.exec(doc)?.[1]);
    expect(maxConnections).toBeGreaterThan(0);
    expect(reserved).toBeGreaterThan(0);
    const total = poolers * perPooler + direct + reserved;
    expect(total).toBeLessThanOrEqual(maxConnections);
    // The guide shows the same sums as the manifests.
    expect(doc).toContain(`(${appMax} + ${workers}) × ${perProcess} = ${clients}`);
    expect(doc).toContain(`${poolers} × ${perPooler} + ${direct} + ${reserved} = ${total}`);
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
