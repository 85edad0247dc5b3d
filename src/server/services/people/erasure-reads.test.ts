import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
import { person } from "@/server/testing/aml";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { plansOf, rowsRead } from "@/server/testing/query-plan";

// Erasing one person reads and writes that person's rows through indexes, not every row of their
// organization (docs/performance.md, "Statistics that lag"): a retention run erases many people.

describe("erasing a person as the organization grows", () => {
  it("reads the person's risk events and screening results, not the organization's", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
    const p = await person(db, org.orgId);
    await db.riskEvent.create({ data: { orgId: org.orgId, kind: "free_create", subjectRef: p.did, decision: "allow", score: 0 } });
    await db.screeningResult.create({
      data: { orgId: org.orgId, subjectType: "person", subjectRef: p.did, provider: "test", detail: { q: 1 } },
    });
    // 3,000 risk events and screening results of other people of the organization, with the statistics
    // taken after them (an organization that grew over months, as autovacuum sees it).
    await db.$executeRaw`
      INSERT INTO screening_results (id, "orgId", "subjectType", "subjectRef", provider, detail, "createdAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, 'person', 'did:bulk:' || g, 'test', '{}'::jsonb, now()
      FROM generate_series(1, 3000) AS g`;
    await db.$executeRaw`
      INSERT INTO risk_events (id, "orgId", kind, "subjectRef", decision, score, detail, "createdAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, 'free_create', 'did:bulk:' || g, 'allow', 0, '{}'::jsonb, now()
      FROM generate_series(1, 3000) AS g`;
    await db.$executeRawUnsafe("ANALYZE risk_events, screening_results");

    const plans = await plansOf(
      async () => {
        const res = await api.post(`/v1/people/${encodeURIComponent(p.did)}/erase`, {});
        expect(res.status, res.text).toBe(200);
      },
      { writes: true },
    );
    expect((await db.person.findUniqueOrThrow({ where: { id: p.id } })).erasedAt).not.toBeNull();
    expect(await db.riskEvent.count({ where: { orgId: org.orgId, subjectRef: p.did, detail: { equals: {} } } })).toBe(1);
    expect(await db.screeningResult.count({ where: { orgId: org.orgId, subjectRef: p.did, detail: { equals: {} } } })).toBe(1);
    for (const table of ["risk_events", "screening_results"]) {
      const read = plans.map((x) => ({ rows: rowsRead(x.nodes, table), plan: x.plan })).filter((x) => x.rows > 0);
      for (const r of read) expect(r.rows, `${table}: ${r.plan}`).toBeLessThanOrEqual(10);
    }
  }, 60_000);
});
