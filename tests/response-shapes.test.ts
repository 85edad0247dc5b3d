import { describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { AdminAmlView, AdminRiskView, AmlCaseList, AmlCaseView, ClearAmlResult, RiskAssessment } from "../src/server/services/aml";
import { DashboardView } from "../src/server/services/dashboard";
import { PeopleList } from "../src/server/services/people";
import { extraKey, flaggedPerson } from "../src/server/testing/aml";
import { client, createTestOrg, testServer } from "../src/server/testing/harness";

// The pipeline does not validate answers against the route's response schema; the OpenAPI
// document is generated from those schemas, so this proves the document tells the truth.
function conforms(schema: ZodType, body: unknown) {
  const r = schema.safeParse(body);
  expect(r.success, JSON.stringify(r.error?.issues)).toBe(true);
}

describe("answers match the documented response schemas", () => {
  it("AML, risk and admin list routes", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
    const api = client(url, org.apiKey);
    const a = await flaggedPerson(db, org.orgId, { sanctions: true, severity: "critical", resultId: "res-1" });
    const b = await flaggedPerson(db, org.orgId);
    const clear = await api.post("/v1/aml/clear", { subjectDid: a.person.did, reason: "namesake" });
    conforms(ClearAmlResult, clear.body);
    conforms(AmlCaseList, (await api.get("/v1/aml/cases")).body);
    const other = client(url, (await extraKey(db, org.orgId)).raw);
    const approved = await other.post(`/v1/aml/cases/${a.caseId}/approve-clear`, { notes: "checked" });
    expect(approved.status).toBe(200);
    conforms(AmlCaseView, approved.body);
    conforms(AmlCaseView, (await api.post(`/v1/aml/cases/${b.caseId}/confirm`, { reason: "true match" })).body);
    conforms(
      RiskAssessment,
      (await api.post("/v1/risk/assess", { deviceFingerprint: "fp", email: "a@mailinator.com", subjectRef: "s" })).body,
    );
    conforms(PeopleList, (await api.get("/v1/admin/people")).body);
    conforms(AdminAmlView, (await api.get("/v1/admin/aml")).body);
    conforms(AdminRiskView, (await api.get("/v1/admin/risk")).body);
    conforms(DashboardView, (await api.get("/v1/admin/dashboard")).body);
  });
});
