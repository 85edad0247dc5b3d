import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sandboxProvider } from "../../providers/kyc/sandbox";
import { createTestOrg } from "../../testing/harness";
import { indexNodes } from "../../testing/query-plan";
import { reviewReadSql } from "./review";
import { humanHashLookups } from "./unique-person";

// A review's one read (review.ts, reviewReadSql): the approved people its identity hashes name are
// looked up from those humans, not found by reading every approved person of the organization,
// whether the planner's statistics know how many there are or not.

describe("a KYC review's read of the people of the same human", () => {
  it("looks them up through the humans' indexes, however many approved people the organization has", async () => {
    const org = await createTestOrg();
    const texts = { document: `document:P${randomUUID()}`, nameBirth: null };
    const human = randomUUID();
    const same = randomUUID();
    const reviewed = randomUUID();
    const lookups = humanHashLookups(texts);
    expect(lookups.length).toBeGreaterThan(0);
    await org.db.$executeRaw`
      INSERT INTO identity_hashes ("keyId", hash, kind, "humanId")
      SELECT k, h, 'document', ${human}::uuid FROM unnest(${lookups.map((l) => l.keyId)}::text[], ${lookups.map((l) => l.hash)}::text[]) AS x(k, h)`;
    // Statistics taken before the organization grew, as autovacuum's lag leaves them for a busy
    // new organization: they say it has almost no approved people.
    await org.db.$executeRawUnsafe("ANALYZE people");
    // 3,000 approved people of other humans, the one approved person of this human, and the person under review.
    await org.db.$executeRaw`
      INSERT INTO people (id, "orgId", "kycStatus", "humanId", "updatedAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, 'approved'::"KycStatus", gen_random_uuid(), now() FROM generate_series(1, 3000)
      UNION ALL SELECT ${same}::uuid, ${org.orgId}::uuid, 'approved'::"KycStatus", ${human}::uuid, now()
      UNION ALL SELECT ${reviewed}::uuid, ${org.orgId}::uuid, 'pending'::"KycStatus", NULL, now()`;

    const sql = reviewReadSql(`evt-${randomUUID()}`, await review(reviewed), texts);
    const none = reviewReadSql(`evt-${randomUUID()}`, await review(reviewed), { document: `document:P${randomUUID()}`, nameBirth: null });
    for (const statistics of ["stale", "fresh"]) {
      if (statistics === "fresh") await org.db.$executeRawUnsafe("ANALYZE people");
      const [row] = await org.db.$queryRaw<{ others: { id: string; humanId: string }[] }[]>(sql);
      expect(row!.others.map((o) => [o.id, o.humanId])).toEqual([[same, human]]);
      const { nodes, plan } = await indexNodes(org.db, sql, "people_orgId_humanId_idx");
      expect(nodes, `${statistics}: ${plan}`).toHaveLength(1);
      // The person under review, the one person of the same human, and nothing else.
      expect(peopleRead(plan), `${statistics}: ${plan}`).toEqual({
        rows: 2,
        reads: ["people_pkey", "people_orgId_humanId_idx", "people_orgId_nameBirthHumanId_idx"],
      });
      // A review whose hashes name nobody reads no one else.
      const [empty] = await org.db.$queryRaw<{ others: unknown[] }[]>(none);
      expect(empty!.others).toEqual([]);
      const { plan: nonePlan } = await indexNodes(org.db, none, "people_pkey");
      expect(peopleRead(nonePlan).rows, `${statistics}: ${nonePlan}`).toBe(1);
    }
  });
});

/** How the plan read people (each index or scan once, in plan order) and the rows all those reads returned. */
function peopleRead(plan: string): { rows: number; reads: string[] } {
  const reads: string[] = [];
  let rows = 0;
  const walk = (n: Record<string, unknown>) => {
    if (n["Relation Name"] === "people") {
      const name = String(n["Index Name"] ?? n["Node Type"]);
      if (!reads.includes(name)) reads.push(name);
      rows += Number(n["Actual Rows"] ?? 0) * Number(n["Actual Loops"] ?? 1);
    }
    for (const c of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(c);
  };
  const [explained] = JSON.parse(plan)["QUERY PLAN"] as { Plan: Record<string, unknown> }[];
  walk(explained!.Plan);
  return { rows, reads };
}

/** An approved review of the person as the sandbox provider shapes one (no identity attributes: the test gives the hashed texts). */
const review = async (personId: string) => ({
  ...(await sandboxProvider().fetchReview(`sbx_${personId.slice(0, 8)}`, personId)),
  status: "approved" as const,
});
