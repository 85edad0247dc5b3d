import { describe, expect, it } from "vitest";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

describe("KYB", () => {
  it("verifies the organization as a legal entity and shows it in its DID document", async () => {
    const { url, org, api } = await setup();
    const bad = await api.post("/v1/kyb/start", {
      legalName: "Acme",
      registrationNumber: "x",
      country: "ZZ",
      address: { line1: "1 Main St", city: "Accra", country: "GH" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(["body.country", "body.registrationNumber"]),
    );
    const started = await api.post("/v1/kyb/start", {
      legalName: "Acme Ghana Ltd",
      registrationNumber: "CS-123457",
      country: "GH",
      address: { line1: "1 Independence Ave", city: "Accra", country: "GH" },
    });
    expect(started.status, started.text).toBe(200);
    expect(started.body).toMatchObject({
      kybStatus: "approved",
      provider: "sandbox",
      organizationDid: expect.stringContaining(`:orgs:${org.orgId}`),
    });
    expect((await call(url, "GET", `/orgs/${org.orgId}/did.json`)).body.kybStatus).toBe("approved");
    const list = await api.get("/v1/admin/organizations");
    expect(list.body.organization.kybStatus).toBe("approved");
    expect(list.body.businesses).toEqual([
      expect.objectContaining({ legalName: "Acme Ghana Ltd", registrationNumber: "CS-123457", status: "approved" }),
    ]);
    expect(
      (
        await api.post("/v1/kyb/start", {
          legalName: "Acme",
          registrationNumber: "CS-1",
          country: "GH",
          address: { line1: "x", city: "y", country: "GH" },
        })
      ).status,
    ).toBe(409);
  });

  it("a rejected registration leaves the organization rejected", async () => {
    const { url, org, api } = await setup();
    const started = await api.post("/v1/kyb/start", {
      legalName: "Nowhere Ltd",
      registrationNumber: "CS-000010",
      country: "GH",
      address: { line1: "x", city: "Accra", country: "GH" },
    });
    expect(started.body.kybStatus).toBe("rejected");
    expect((await call(url, "GET", `/orgs/${org.orgId}/did.json`)).body.kybStatus).toBe("rejected");
  });
});
