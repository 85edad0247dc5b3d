import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

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
