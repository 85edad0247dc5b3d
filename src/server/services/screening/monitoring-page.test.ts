import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rawQuery } from "../../db/client";
import { createTestOrg, type TestOrg } from "../../testing/harness";
import { indexNodes } from "../../testing/query-plan";
import { personPageSql } from "./monitoring-runs";

// The page a re-screen reads (monitoring-runs.ts, personPageSql): who is in it, and that
// PostgreSQL reads it from the three indexes alone (migration 20261129050000_rescreen_page_indexes).

type Seeded = { id: string; status: string; erased: boolean; subject: boolean; key: boolean };

/** People of every kind a page must keep or leave out, with their subjects and keys, in one statement. */
async function seed(org: TestOrg, n: number, kind: (i: number) => Omit<Seeded, "id">): Promise<Seeded[]> {
  const people = Array.from({ length: n }, (_, i) => ({ id: randomUUID(), ...kind(i) }));
  const orgId = org.orgId;
  await org.db.$executeRaw`
    WITH x AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(people)}::jsonb)
               AS x(id uuid, status text, erased boolean, subject boolean, key boolean)),
         p AS (INSERT INTO people (id, "orgId", "kycStatus", "erasedAt", "updatedAt")
               SELECT id, ${orgId}::uuid, status::"KycStatus", CASE WHEN erased THEN now() END, now() FROM x),
         k AS (INSERT INTO person_keys ("personId", "orgId", "keySealed") SELECT id, ${orgId}::uuid, 'key-' || id FROM x WHERE key)
    INSERT INTO screening_subjects ("personId", "orgId", "querySealed", "updatedAt")
    SELECT id, ${orgId}::uuid, 'subject-' || id, now() FROM x WHERE subject`;
  return people;
}

const kinds = (i: number): Omit<Seeded, "id"> => {
  switch (i % 10) {
    case 0:
      return { status: "rejected", erased: false, subject: true, key: true };
    case 1:
      return { status: "approved", erased: true, subject: true, key: true };
    case 2:
      // Kept before person keys: the subject is sealed with BI_ENCRYPTION_KEY alone.
      return { status: "approved", erased: false, subject: true, key: false };
    case 3:
      return { status: "approved", erased: false, subject: false, key: true };
    default:
      return { status: "approved", erased: false, subject: true, key: true };
  }
};

type PageRow = { personId: string; querySealed: string; keySealed: string | null };

describe("a re-screen's page of people", () => {
  it("holds the organization's approved people with an identity on file, in id order, each with its own key or none", async () => {
    const org = await createTestOrg();
    const other = await createTestOrg();
    const mine = await seed(org, 1_200, kinds);
    await seed(other, 400, () => ({ status: "approved", erased: false, subject: true, key: true }));
    const expected = mine
      .filter((p) => p.status === "approved" && !p.erased && p.subject)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((p) => ({ personId: p.id, querySealed: `subject-${p.id}`, keySealed: p.key ? `key-${p.id}` : null }));

    const read: PageRow[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page: PageRow[] = await rawQuery<PageRow>(org.db, personPageSql(org.orgId, cursor, 250));
      if (page.length === 0) break;
      read.push(...page);
      cursor = page.at(-1)!.personId;
    }
    expect(read.length).toBe(expected.length);
    expect(read).toEqual(expected);
  });

  it("is read from the indexes' leaf pages alone, the keys as one range from the cursor to the page's last person", async () => {
    const org = await createTestOrg();
    const people = await seed(org, 6_000, kinds);
    // A table that autovacuum has been through, as an organization's people are by the time a
    // list changes: index-only scans need the visibility map.
    await org.db.$executeRawUnsafe("VACUUM ANALYZE people, person_keys, screening_subjects");
    const ids = people.map((p) => p.id).sort();
    const cursor = ids[3_000]!;
    const page = await rawQuery<PageRow>(org.db, personPageSql(org.orgId, cursor, 500));
    expect(page).toHaveLength(500);
    const last = page.at(-1)!.personId;
    const keysInRange = people.filter((p) => p.key && p.id > cursor && p.id <= last).length;

    const sql = personPageSql(org.orgId, cursor, 500);
    for (const [index, rows] of [
      ["screening_subjects_rescreen_idx", undefined],
      ["people_rescreen_idx", undefined],
      ["person_keys_rescreen_idx", keysInRange],
    ] as const) {
      const { nodes, plan } = await indexNodes(org.db, sql, index);
      expect(nodes, plan).toHaveLength(1);
      expect([nodes[0]!["Node Type"], nodes[0]!["Heap Fetches"]], plan).toEqual(["Index Only Scan", 0]);
      if (rows !== undefined) expect(nodes[0]!["Actual Rows"], plan).toBe(rows);
    }
  });
});
