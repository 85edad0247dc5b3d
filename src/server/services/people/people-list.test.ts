import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { plansOf, rowsRead } from "@/server/testing/query-plan";

// The console's people page (GET /v1/admin/people) as an organization grows: a page of the newest
// people, or of those in one KYC status, is read from an index in that order, not every person of
// the organization sorted (docs/performance.md, "Statistics that lag").

describe("GET /v1/admin/people as the organization grows", () => {
  it("reads about a page, newest first, filtered by KYC status or not", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    // 3,000 approved people over the last days, then five rejected ones among the oldest, with the
    // statistics taken after them (with statistics that still call the organization small, the
    // planner reads its few rows and sorts them, whatever the indexes).
    await db.$executeRaw`
      INSERT INTO people (id, "orgId", "kycStatus", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, CASE WHEN g <= 5 THEN 'rejected' ELSE 'approved' END::"KycStatus",
             now() - interval '1 minute' * (3000 - g), now()
      FROM generate_series(1, 3000) AS g`;
    await db.$executeRawUnsafe("ANALYZE people");

    const pages: Record<string, { kycStatus: string; createdAt: string }[]> = {};
    const plans = await plansOf(async () => {
      for (const [name, path] of [
        ["newest", "/v1/admin/people?limit=20"],
        ["rejected", "/v1/admin/people?kycStatus=rejected&limit=20"],
      ] as const) {
        const res = await api.get(path);
        expect(res.status, res.text).toBe(200);
        pages[name] = res.body.people;
      }
    });
    expect(pages.newest!.length).toBe(20);
    const times = pages.newest!.map((p) => Date.parse(p.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(pages.rejected!.map((p) => p.kycStatus)).toEqual(Array(5).fill("rejected"));
    const read = plans.map((p) => ({ rows: rowsRead(p.nodes, "people"), plan: p.plan })).filter((p) => p.rows > 0);
    expect(read.length).toBe(2);
    for (const r of read) expect(r.rows, r.plan).toBeLessThanOrEqual(25);
  });
});
