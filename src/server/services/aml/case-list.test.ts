import { describe, expect, it } from "vitest";
import { flaggedPerson } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { plansOf, rowsRead } from "../../testing/query-plan";

// GET /v1/aml/cases as an organization's closed cases pile up: each tab reads its page from an
// index in the tab's order, not every case of the tab sorted (docs/performance.md, "Statistics
// that lag").

describe("GET /v1/aml/cases as the organization grows", () => {
  it("reads a page of each tab in order, with the statistics taken before the cases and after", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const high = await flaggedPerson(db, org.orgId, { pep: true });
    const critical = await flaggedPerson(db, org.orgId, { sanctions: true, pep: false, severity: "critical", score: 99 });
    await db.$executeRawUnsafe("ANALYZE aml_cases");
    // 6,000 cases closed over the last days, newest last, and 20 open low-priority ones older than the two above.
    await db.$executeRaw`
      INSERT INTO aml_cases (id, "orgId", "subjectDid", status, priority, reason, "openedBy", "closedAt", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, 'did:bulk:' || g, 'cleared', 'high', 'bulk', 'system:test',
             now() - interval '1 minute' * (6000 - g), now() - interval '10 days', now()
      FROM generate_series(1, 6000) AS g`;
    await db.$executeRaw`
      INSERT INTO aml_cases (id, "orgId", "subjectDid", status, priority, reason, "openedBy", "assigneeEmail", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, 'did:open:' || g, 'open', 'low', 'bulk', 'system:test',
             CASE WHEN g % 2 = 0 THEN 'ada@example.test' END, now() - interval '1 day' + interval '1 second' * g, now()
      FROM generate_series(1, 20) AS g`;

    const tabs = async () => {
      const pages: Record<string, { caseId: string; subjectDid: string; priority: string; status: string }[]> = {};
      const plans = await plansOf(async () => {
        for (const [tab, path] of [
          ["open", "/v1/aml/cases?limit=5"],
          ["unassigned", "/v1/aml/cases?assignee=none&limit=5"],
          ["closed", "/v1/aml/cases?status=closed&limit=3"],
          ["all", "/v1/aml/cases?status=all&limit=4"],
        ] as const) {
          const res = await api.get(path);
          expect(res.status, res.text).toBe(200);
          pages[tab] = res.body.cases;
        }
      });
      const read = plans.map((p) => ({ rows: rowsRead(p.nodes, "aml_cases"), plan: p.plan })).filter((p) => p.rows > 0);
      return { pages, read };
    };

    for (const when of ["stale", "analyzed"]) {
      if (when === "analyzed") await db.$executeRawUnsafe("ANALYZE aml_cases");
      const { pages, read } = await tabs();
      // The queue: critical first, then high, then the low ones oldest first.
      expect(pages.open!.map((c) => c.caseId).slice(0, 2), when).toEqual([critical.caseId, high.caseId]);
      expect(pages.open!.slice(2).map((c) => [c.subjectDid, c.priority])).toEqual([
        ["did:open:1", "low"],
        ["did:open:2", "low"],
        ["did:open:3", "low"],
      ]);
      expect(pages.unassigned!.slice(2).map((c) => c.subjectDid)).toEqual(["did:open:1", "did:open:3", "did:open:5"]);
      expect(pages.closed!.map((c) => [c.subjectDid, c.status])).toEqual([
        ["did:bulk:6000", "cleared"],
        ["did:bulk:5999", "cleared"],
        ["did:bulk:5998", "cleared"],
      ]);
      // Every case: the critical one, then the high ones oldest first (the closed ones, opened ten days ago).
      expect(pages.all![0]!.caseId).toBe(critical.caseId);
      expect(pages.all!.slice(1).map((c) => [c.priority, c.status])).toEqual(Array(3).fill(["high", "cleared"]));
      // Four lists, each reading about its page (the unassigned tab skips the assigned cases it passes).
      expect(read.length, when).toBe(4);
      for (const r of read) expect(r.rows, `${when}: ${r.plan}`).toBeLessThanOrEqual(20);
    }
  });
});
