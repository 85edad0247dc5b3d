import { describe, expect, it } from "vitest";
import { getDb } from "../db/client";
import { bulkAccounts } from "../testing/bulk";
import { accountRow } from "../testing/factories";
import { createTestOrg } from "../testing/harness";
import { plansOf, rowsRead } from "../testing/query-plan";
import { findAccount } from "./account-ref";

// Every endpoint that names an account finds it with findAccount: by its DID or bare name, in the
// caller's organization, never a pending one. It reads that one account, however many the
// organization has and whether the planner's statistics know how many or not (docs/performance.md,
// "Statistics that lag").

describe("findAccount", () => {
  it("reads the one account named, by DID or bare name, with statistics stale and fresh", async () => {
    const db = await getDb();
    const org = await createTestOrg();
    const other = await createTestOrg();
    // Statistics taken while the organization had no accounts, as autovacuum's lag leaves them for a busy new one.
    await db.$executeRawUnsafe("ANALYZE accounts");
    await bulkAccounts(db, org.orgId, 3000);
    const mine = await accountRow(db, org.orgId);
    const theirs = await accountRow(db, other.orgId);
    const pending = await accountRow(db, org.orgId, { lifecycle: "pending" });

    for (const statistics of ["stale", "fresh"]) {
      if (statistics === "fresh") await db.$executeRawUnsafe("ANALYZE accounts");
      for (const ref of [mine.did, mine.name]) {
        let found: unknown;
        const plans = await plansOf(async () => (found = await findAccount(db, org.orgId, ref)));
        expect((found as { id: string }).id, ref).toBe(mine.id);
        const read = plans.reduce((n, p) => n + rowsRead(p.nodes, "accounts"), 0);
        expect(read, `${statistics} ${ref}: ${plans.map((p) => p.plan).join("\n")}`).toBeLessThanOrEqual(1);
      }
      // Another organization's account and a pending one are not found, by either name.
      for (const ref of [theirs.did, theirs.name, pending.did, pending.name, "did:antelope:sandbox:nosuchname", "nosuchname"]) {
        await expect(findAccount(db, org.orgId, ref), ref).rejects.toMatchObject({ status: 404 });
      }
    }
  });
});
