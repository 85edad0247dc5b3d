import { describe, expect, it } from "vitest";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { verifyChain } from "../audit/verify";
import { AdminTenantView } from "./tenant.schema";

const audits = (org: TestOrg, action: string) =>
  org.db.auditEntry.findMany({ where: { orgId: org.orgId, action }, orderBy: { seq: "asc" } });
const auditCount = (org: TestOrg) => org.db.auditEntry.count({ where: { orgId: org.orgId } });
const orgRow = (org: TestOrg) => org.db.organization.findUniqueOrThrow({ where: { id: org.orgId } });

async function setup() {
  const { url } = await testServer();
  const org = await createTestOrg();
  const keyId = (await org.db.apiKey.findFirstOrThrow({ where: { orgId: org.orgId } })).id;
  return { org, api: client(url, org.apiKey), actor: `api_key:${keyId}` };
}

describe("GET /v1/admin/tenant", () => {
  it("answers the organization and its policy with the contact email, and no secret", async () => {
    const { org, api } = await setup();
    const { signingSecret } = (await api.post("/v1/admin/signing/enable")).body;
    const row = await orgRow(org);
    const ok = await api.get("/v1/admin/tenant", { signWith: signingSecret });
    expect(ok.status).toBe(200);
    expect(AdminTenantView.strict().parse(ok.body)).toBeTruthy();
    expect(ok.body).toMatchObject({
      organizationId: org.orgId,
      contactEmail: row.contactEmail,
      policy: { requireEmailProofBeforeFreeCreate: false, requireSecondApprovalToClearAml: false },
      ipAllowlist: { cidrs: [] },
      countryPolicy: { allowedCountries: [], blockedCountries: [] },
      signingEnabled: true,
      dpaAcceptedAt: null,
    });
    expect(ok.text).not.toContain(signingSecret);
    expect(ok.text).not.toContain(row.consolePasswordHash);
    expect(ok.text).not.toContain(row.signingSecretEnc!);
    expect(ok.text).not.toMatch(/consolePassword|signingSecret/);
  });
});

describe("PATCH /v1/admin/tenant/policy", () => {
  it("sets the given flags, answers the whole policy and audits before and after", async () => {
    const { org, api, actor } = await setup();
    const res = await api.patch("/v1/admin/tenant/policy", { requireSecondApprovalToClearAml: true, requireKycBeforeFreeCreate: true });
    expect(res.status).toBe(200);
    const policy = {
      requireEmailProofBeforeFreeCreate: false,
      requirePhoneProofBeforeFreeCreate: false,
      requireKycBeforeFreeCreate: true,
      requireSecondApprovalToClearAml: true,
      walletCredentialCountry: false,
    };
    expect(res.body).toEqual(policy);
    expect(await orgRow(org)).toMatchObject(policy);
    const [entry] = await audits(org, "policy.updated");
    expect(entry).toMatchObject({ actor, subjectType: "organization", subject: org.orgId });
    expect(entry!.data).toMatchObject({
      before: { requireKycBeforeFreeCreate: false, requireSecondApprovalToClearAml: false },
      after: { requireKycBeforeFreeCreate: true, requireSecondApprovalToClearAml: true },
    });

    const same = await api.patch("/v1/admin/tenant/policy", { requireKycBeforeFreeCreate: true });
    expect(same.body).toEqual(policy);
    expect(await audits(org, "policy.updated")).toHaveLength(1);

    const off = await api.patch("/v1/admin/tenant/policy", { requireKycBeforeFreeCreate: false, requirePhoneProofBeforeFreeCreate: true });
    expect(off.body).toMatchObject({
      requireKycBeforeFreeCreate: false,
      requirePhoneProofBeforeFreeCreate: true,
      requireSecondApprovalToClearAml: true,
    });
    expect(await audits(org, "policy.updated")).toHaveLength(2);
  });

  it.each([
    ["an empty body", {}],
    ["only an unknown flag", { requireFoo: true }],
    ["a known flag beside an unknown one", { requireKycBeforeFreeCreate: true, requireFoo: true }],
    ["a flag that is not a boolean", { requireKycBeforeFreeCreate: "yes" }],
  ])("answers 400 for %s and writes nothing", async (_what, body) => {
    const { org, api } = await setup();
    const before = await auditCount(org);
    const res = await api.patch("/v1/admin/tenant/policy", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect((await orgRow(org)).requireKycBeforeFreeCreate).toBe(false);
    expect(await auditCount(org)).toBe(before);
  });
});

describe("PUT /v1/admin/country-policy", () => {
  it("stores codes upper case and de-duplicated, and leaves an omitted list unchanged", async () => {
    const { org, api, actor } = await setup();
    const res = await api.put("/v1/admin/country-policy", { allowedCountries: ["ng", "GH", "gh"], blockedCountries: ["ru"] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ allowedCountries: ["GH", "NG"], blockedCountries: ["RU"] });
    expect(await orgRow(org)).toMatchObject({ allowedCountries: ["GH", "NG"], blockedCountries: ["RU"] });
    const [entry] = await audits(org, "country_policy.updated");
    expect(entry).toMatchObject({ actor, subject: org.orgId });
    expect(entry!.data).toEqual({
      before: { allowedCountries: [], blockedCountries: [] },
      after: { allowedCountries: ["GH", "NG"], blockedCountries: ["RU"] },
    });

    const onlyBlocked = await api.put("/v1/admin/country-policy", { blockedCountries: [] });
    expect(onlyBlocked.body).toEqual({ allowedCountries: ["GH", "NG"], blockedCountries: [] });
    expect(await orgRow(org)).toMatchObject({ allowedCountries: ["GH", "NG"], blockedCountries: [] });

    const nothing = await api.put("/v1/admin/country-policy", {});
    expect(nothing.body).toEqual({ allowedCountries: ["GH", "NG"], blockedCountries: [] });
    expect(await audits(org, "country_policy.updated")).toHaveLength(2);
  });

  it("refuses unassigned codes with INVALID_COUNTRY_CODE naming each, and writes nothing", async () => {
    const { org, api } = await setup();
    await api.put("/v1/admin/country-policy", { blockedCountries: ["KP"] });
    const before = await auditCount(org);
    const res = await api.put("/v1/admin/country-policy", { allowedCountries: ["zz", "GH", "XX"], blockedCountries: ["xk"] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "INVALID_COUNTRY_CODE", details: { invalid: ["XK", "XX", "ZZ"] } });
    expect(typeof res.body.error.correlationId).toBe("string");
    expect(await orgRow(org)).toMatchObject({ allowedCountries: [], blockedCountries: ["KP"] });
    expect(await auditCount(org)).toBe(before);
  });

  it.each([
    ["a three-letter code", { allowedCountries: ["GHA"] }],
    ["a digit code", { blockedCountries: ["12"] }],
    ["a string instead of a list", { allowedCountries: "GH" }],
    ["null", { blockedCountries: null }],
  ])("answers 400 VALIDATION_ERROR for %s", async (_what, body) => {
    const { org, api } = await setup();
    const res = await api.put("/v1/admin/country-policy", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(await audits(org, "country_policy.updated")).toHaveLength(0);
  });
});

describe("POST /v1/admin/dpa/accept", () => {
  it("records the first acceptance once; accepting again answers the same time", async () => {
    const { org, api, actor } = await setup();
    const res = await api.post("/v1/admin/dpa/accept");
    expect(res.status).toBe(200);
    const row = await orgRow(org);
    expect(res.body).toEqual({ dpaAcceptedAt: row.dpaAcceptedAt!.toISOString() });
    const again = await api.post("/v1/admin/dpa/accept");
    expect(again.body).toEqual(res.body);
    const entries = await audits(org, "dpa.accepted");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor, data: { dpaAcceptedAt: res.body.dpaAcceptedAt } });
    expect((await api.get("/v1/admin/tenant")).body.dpaAcceptedAt).toBe(res.body.dpaAcceptedAt);
    expect(await verifyChain(org.db, org.orgId)).toMatchObject({ valid: true });
  });
});
