import { describe, expect, it } from "vitest";
import { person } from "@/server/testing/aml";
import { client, createTestOrg, testServer } from "@/server/testing/harness";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

describe("GET /v1/admin/people", () => {
  it("lists the organization's people newest first with KYC status, flags and risk score; filters and pages like accounts", async () => {
    const { db, org, api } = await setup();
    const other = await createTestOrg();
    await person(db, other.orgId, { pepFlag: true });
    const made = [];
    for (let i = 0; i < 5; i++) {
      const p = await person(db, org.orgId, i === 1 ? { sanctionsFlag: true, riskScore: 90 } : {});
      await db.person.update({
        where: { id: p.id },
        data: { createdAt: new Date(Date.now() - (5 - i) * 1000), kycStatus: i === 4 ? "pending" : "approved" },
      });
      made.push(p);
    }
    const all = await api.get("/v1/admin/people");
    expect(all.status, all.text).toBe(200);
    expect(all.body.people.map((p: any) => p.personDid)).toEqual(made.map((p) => p.did).reverse());
    expect(all.body.people[3]).toMatchObject({ kycStatus: "approved", sanctionsFlag: true, pepFlag: false, riskScore: 90, country: "GH" });
    expect(all.body.nextBefore).toBeNull();

    const page1 = await api.get("/v1/admin/people?limit=2");
    expect(page1.body.people.map((p: any) => p.personDid)).toEqual([made[4]!.did, made[3]!.did]);
    const page2 = await api.get(`/v1/admin/people?limit=2&before=${encodeURIComponent(page1.body.nextBefore)}`);
    expect(page2.body.people.map((p: any) => p.personDid)).toEqual([made[2]!.did, made[1]!.did]);

    expect((await api.get("/v1/admin/people?flagged=true")).body.people.map((p: any) => p.personDid)).toEqual([made[1]!.did]);
    expect((await api.get("/v1/admin/people?kycStatus=pending")).body.people.map((p: any) => p.personDid)).toEqual([made[4]!.did]);
    expect((await api.get("/v1/admin/people?limit=0")).status).toBe(400);
    expect((await api.get("/v1/admin/people?kycStatus=bogus")).status).toBe(400);
  });
});
