import { describe, expect, it } from "vitest";
import { routes } from "@/server/http/routes";
import type { RouteDef } from "@/server/http/types";
import { appendAudit } from "@/server/services/audit";
import { orgFootprint, securityCases, securityWorld } from "@/server/testing/security-suite";

// Generated from the route table: every authenticated route gets the missing-key, unknown-key,
// wrong-environment and missing-scope cases, and a cross-organization case when it has path params.
describe("security of every authenticated route", () => {
  for (const group of securityCases(routes)) {
    describe(group.title, () => {
      for (const c of group.cases) it(c.name, c.run);
    });
  }
});

describe("the security suite itself", () => {
  it("covers every authenticated route of the table", () => {
    const authenticated = routes.filter((r) => r.auth !== "public");
    expect(authenticated.length).toBeGreaterThan(0);
    expect(securityCases(routes).map((g) => g.route)).toEqual(authenticated);
  });

  it("fails a parameterised route that has no fixture", async () => {
    const orphan: RouteDef = {
      method: "GET",
      path: "/v1/orphans/{orphanId}",
      auth: { scope: "read" },
      tag: "Test",
      summary: "A route nobody wrote a fixture for.",
      handler: async () => ({}),
    };
    const crossOrg = securityCases([orphan])[0]!.cases.find((c) => c.name.includes("another organization"));
    expect(crossOrg).toBeDefined();
    await expect(crossOrg!.run()).rejects.toThrow(/no fixture.*route-fixtures\.ts/);
  });

  it("counts every table with an orgId column, and notices a write", async () => {
    const w = await securityWorld();
    const before = await orgFootprint(w.db, w.orgA);
    for (const t of [
      "audit_entries",
      "api_keys",
      "accounts",
      "people",
      "aml_cases",
      "export_jobs",
      "webhooks",
      "webhook_deliveries",
      "outbox_events",
      "idempotency_records",
      "otp_challenges",
      "organizations",
    ]) {
      expect(before, t).toHaveProperty(t);
    }
    await w.db.$transaction((tx) => appendAudit(tx, { orgId: w.orgA, actor: "system:security-suite" }, { action: "test.footprint" }));
    const after = await orgFootprint(w.db, w.orgA);
    expect(after.audit_entries!.rows).toBe(before.audit_entries!.rows + 1);
    expect(after.audit_heads!.digest).not.toBe(before.audit_heads!.digest);
  });
});
