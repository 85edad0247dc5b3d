import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
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
