import { describe, expect, it } from "vitest";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";

const orgRow = (org: TestOrg) => org.db.organization.findUniqueOrThrow({ where: { id: org.orgId } });
const audits = (org: TestOrg, action: string) =>
  org.db.auditEntry.findMany({ where: { orgId: org.orgId, action }, orderBy: { seq: "asc" } });

async function setup() {
  const { url } = await testServer();
  const org = await createTestOrg();
  return { org, api: client(url, org.apiKey) };
}

const expectIpRefused = (res: { status: number; body: any }) => {
  expect(res.status).toBe(403);
  expect(res.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "ip_not_allowed" } });
};

describe("PUT /v1/admin/ip-allowlist", () => {
  it("replaces the list with normalised, de-duplicated entries and audits before and after", async () => {
    const { org, api } = await setup();
    const res = await api.put("/v1/admin/ip-allowlist", {
      cidrs: ["127.0.0.1", " 10.1.2.3/8 ", "10.0.0.0/8", "2001:DB8:0:0::1/32", "::ffff:192.0.2.0/120"],
    });
    expect(res.status).toBe(200);
    const cidrs = ["127.0.0.1/32", "10.0.0.0/8", "2001:db8::/32", "192.0.2.0/24"];
    expect(res.body).toEqual({ cidrs });
    expect((await orgRow(org)).ipAllowlist).toEqual(cidrs);
    const [entry] = await audits(org, "ip_allowlist.updated");
    expect(entry).toMatchObject({ subjectType: "organization", subject: org.orgId, data: { before: [], after: cidrs } });

    const replaced = await api.put("/v1/admin/ip-allowlist", { cidrs: ["127.0.0.0/8"] });
    expect(replaced.body).toEqual({ cidrs: ["127.0.0.0/8"] });
    expect((await orgRow(org)).ipAllowlist).toEqual(["127.0.0.0/8"]);
    expect((await audits(org, "ip_allowlist.updated"))[1]!.data).toEqual({ before: cidrs, after: ["127.0.0.0/8"] });

    const unchanged = await api.put("/v1/admin/ip-allowlist", { cidrs: ["127.0.0.1/8"] });
    expect(unchanged.body).toEqual({ cidrs: ["127.0.0.0/8"] });
    expect(await audits(org, "ip_allowlist.updated")).toHaveLength(2);

    const cleared = await api.put("/v1/admin/ip-allowlist", { cidrs: [] });
    expect(cleared.body).toEqual({ cidrs: [] });
    expect((await orgRow(org)).ipAllowlist).toEqual([]);
    expect(await audits(org, "ip_allowlist.updated")).toHaveLength(3);
  });

  it("answers 400 naming the index of each invalid entry, and writes nothing", async () => {
    const { org, api } = await setup();
    await api.put("/v1/admin/ip-allowlist", { cidrs: ["127.0.0.1/32"] });
    const res = await api.put("/v1/admin/ip-allowlist", { cidrs: ["10.0.0.0/8", "10.0.0.0/33", "10/8", "banana", "fe80::1%eth0"] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual([
      "body.cidrs.1",
      "body.cidrs.2",
      "body.cidrs.3",
      "body.cidrs.4",
    ]);
    expect(res.body.error.details.issues[0].message).toMatch(/cidrs\[1\]/);
    expect((await orgRow(org)).ipAllowlist).toEqual(["127.0.0.1/32"]);
    expect(await audits(org, "ip_allowlist.updated")).toHaveLength(1);
  });

  it.each([
    ["a missing list", {}],
    ["a string instead of a list", { cidrs: "10.0.0.0/8" }],
    ["a non-string entry", { cidrs: [10] }],
    ["more than 100 entries", { cidrs: Array.from({ length: 101 }, (_, i) => `10.0.${i}.0/24`) }],
  ])("answers 400 for %s", async (_what, body) => {
    const { org, api } = await setup();
    const res = await api.put("/v1/admin/ip-allowlist", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect((await orgRow(org)).ipAllowlist).toEqual([]);
    expect(await audits(org, "ip_allowlist.updated")).toHaveLength(0);
  });
});

describe("the IP allowlist at request time", () => {
  it("fails closed: a list without the caller refuses every later call, the fixing PUT included", async () => {
    const { org, api } = await setup();
    const put = await api.put("/v1/admin/ip-allowlist", { cidrs: ["203.0.113.0/24"] });
    expect(put.status).toBe(200);
    expect(put.body.cidrs).toEqual(["203.0.113.0/24"]);
    expect(put.body.warning).toMatch(/127\.0\.0\.1/);

    expectIpRefused(await api.get("/v1/tenant"));
    expectIpRefused(await api.put("/v1/admin/ip-allowlist", { cidrs: ["127.0.0.1/32"] }));
    expect((await orgRow(org)).ipAllowlist).toEqual(["203.0.113.0/24"]);
    expect(await audits(org, "ip_allowlist.updated")).toHaveLength(1);

    // Recovery is out of band (the console, or the operator's database), never through the API.
    await org.db.organization.update({ where: { id: org.orgId }, data: { ipAllowlist: [] } });
    expect((await api.get("/v1/tenant")).status).toBe(200);
  });

  it("lets calls from a listed address through", async () => {
    const { org, api } = await setup();
    const put = await api.put("/v1/admin/ip-allowlist", { cidrs: ["203.0.113.0/24", "127.0.0.1/32"] });
    expect(put.body).toEqual({ cidrs: ["203.0.113.0/24", "127.0.0.1/32"] });
    expect((await api.get("/v1/tenant")).status).toBe(200);
    expect((await api.get("/v1/admin/tenant")).body.ipAllowlist).toEqual({ cidrs: ["203.0.113.0/24", "127.0.0.1/32"] });
    expect((await orgRow(org)).ipAllowlist).toEqual(["203.0.113.0/24", "127.0.0.1/32"]);
  });

  it("does not believe a spoofed X-Forwarded-For from an untrusted peer", async () => {
    const { org, api } = await setup();
    await org.db.organization.update({ where: { id: org.orgId }, data: { ipAllowlist: ["203.0.113.0/24"] } });
    expectIpRefused(await api.get("/v1/tenant", { headers: { "x-forwarded-for": "203.0.113.5" } }));
    expectIpRefused(await api.get("/v1/tenant", { headers: { "x-forwarded-for": "198.51.100.1, 203.0.113.5" } }));
  });

  it("checks the allowlist before the signature, so signing cannot be used to probe past it", async () => {
    const { org, api } = await setup();
    await org.db.organization.update({
      where: { id: org.orgId },
      data: { ipAllowlist: ["203.0.113.0/24"], signingEnabled: true, signingSecretEnc: "v1.none.x.y" },
    });
    expectIpRefused(await api.get("/v1/tenant"));
  });

  it("leaves other organizations alone", async () => {
    const { org } = await setup();
    const { url } = await testServer();
    const other = await createTestOrg();
    await org.db.organization.update({ where: { id: org.orgId }, data: { ipAllowlist: ["203.0.113.0/24"] } });
    expect((await client(url, other.apiKey).get("/v1/tenant")).status).toBe(200);
  });
});
