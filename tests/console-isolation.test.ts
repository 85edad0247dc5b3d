import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { createCaller } from "@/server/api/root";
import { getDb } from "@/server/db/client";
import { serviceCtx } from "@/server/testing/aml";
import { createTestOrg } from "@/server/testing/harness";
import { routeFixtures } from "@/server/testing/route-fixtures";
import { orgFootprint } from "@/server/testing/security-suite";

// Every console procedure that names a record by id, called by another organization's owner with
// a record of organization A: 404 (NOT_FOUND), and nothing of A changes. Records are made by the
// same fixtures the /v1 security suite uses for the twin routes.

type Case = { procedure: string; route: string; input: (params: Record<string, string>) => unknown };

const CASES: Case[] = [
  { procedure: "apiKeys.revoke", route: "DELETE /v1/admin/api-keys/{id}", input: (p) => ({ id: p.id }) },
  { procedure: "members.update", route: "PATCH /v1/admin/members/{email}", input: (p) => ({ email: p.email, patch: { role: "viewer" } }) },
  { procedure: "members.remove", route: "DELETE /v1/admin/members/{email}", input: (p) => ({ email: p.email }) },
  { procedure: "accounts.get", route: "GET /v1/accounts/{did}", input: (p) => ({ did: p.did }) },
  { procedure: "accounts.suspend", route: "GET /v1/accounts/{did}", input: (p) => ({ accountDid: p.did }) },
  { procedure: "aml.detail", route: "POST /v1/aml/cases/{caseId}/confirm", input: (p) => ({ caseId: p.caseId }) },
  {
    procedure: "aml.confirm",
    route: "POST /v1/aml/cases/{caseId}/confirm",
    input: (p) => ({ caseId: p.caseId, body: { reason: "not ours" } }),
  },
  { procedure: "aml.approveClear", route: "POST /v1/aml/cases/{caseId}/approve-clear", input: (p) => ({ caseId: p.caseId, body: {} }) },
  { procedure: "aml.timeline", route: "GET /v1/aml/cases/{caseId}/timeline", input: (p) => ({ caseId: p.caseId }) },
  { procedure: "aml.exportCase", route: "POST /v1/aml/cases/{caseId}/export", input: (p) => ({ caseId: p.caseId }) },
  {
    procedure: "aml.assign",
    route: "POST /v1/aml/cases/{caseId}/assign",
    input: (p) => ({ caseId: p.caseId, body: { assigneeEmail: "owner@b.example" } }),
  },
  {
    procedure: "aml.reassign",
    route: "POST /v1/aml/cases/{caseId}/reassign",
    input: (p) => ({ caseId: p.caseId, body: { assigneeEmail: "owner@b.example", reason: "not ours" } }),
  },
  { procedure: "aml.unassign", route: "POST /v1/aml/cases/{caseId}/unassign", input: (p) => ({ caseId: p.caseId, body: {} }) },
  {
    procedure: "aml.comment",
    route: "POST /v1/aml/cases/{caseId}/comments",
    input: (p) => ({ caseId: p.caseId, body: { text: "not ours" } }),
  },
  { procedure: "webhooks.deactivate", route: "DELETE /v1/admin/webhooks/{id}", input: (p) => ({ id: p.id }) },
  { procedure: "webhooks.replay", route: "POST /v1/admin/webhooks/deliveries/{id}/replay", input: (p) => ({ id: p.id }) },
  { procedure: "people.exportData", route: "GET /v1/people/{personDid}/export", input: (p) => ({ id: p.personDid }) },
  { procedure: "audit.getExport", route: "GET /v1/compliance/export/{jobId}", input: (p) => ({ jobId: p.jobId }) },
];

describe("console procedures and another organization's records", () => {
  it.each(CASES.map((c) => [c.procedure, c] as const))("%s: 404, and nothing of the other organization changes", async (_name, c) => {
    const db = await getDb();
    const [a, b] = [await createTestOrg({ plan: "institutional" }), await createTestOrg({ plan: "institutional" })];
    const params = await routeFixtures[c.route]!.params!({ db, orgId: a.orgId });
    const caller = createCaller({ svc: await serviceCtx(db, b.orgId, { type: "member", email: "owner@b.example", role: "owner" }) });
    const [ns, name] = c.procedure.split(".") as [string, string];
    const before = await orgFootprint(db, a.orgId);
    const fn = (caller as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>)[ns]![name]!;
    const outcome = await fn(c.input(params)).then(
      () => "answered",
      (e: unknown) => (e instanceof TRPCError ? e.code : String(e)),
    );
    expect(outcome).toBe("NOT_FOUND");
    expect(await orgFootprint(db, a.orgId)).toEqual(before);
  });
});
