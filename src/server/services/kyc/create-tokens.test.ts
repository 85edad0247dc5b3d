import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getDb } from "../../db/client";
import { createTestOrg } from "../../testing/harness";
import { plansOf, rowsRead } from "../../testing/query-plan";
import { liveCreateToken } from "./create-tokens";

// GET /v1/kyc/status hands an approved person their live create token (liveCreateToken): it reads
// that person's tokens only, however many the organization holds, with the planner's statistics
// stale or fresh (docs/performance.md, "Statistics that lag").

describe("an approved person's live create token", () => {
  it("is read from the person's own tokens, and handed back the same while live", async () => {
    const db = await getDb();
    const org = await createTestOrg();
    await db.$executeRawUnsafe("ANALYZE kyc_create_tokens");
    // 3,000 tokens of other people of the organization, as a busy one has.
    await db.$executeRaw`
      WITH p AS (
        INSERT INTO people (id, "orgId", "kycStatus", "updatedAt")
        SELECT gen_random_uuid(), ${org.orgId}::uuid, 'approved'::"KycStatus", now() FROM generate_series(1, 3000) RETURNING id)
      INSERT INTO kyc_create_tokens (id, "orgId", "personId", "tokenHash", "tokenEnc", "expiresAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, id, md5(random()::text), 'sealed', now() + interval '1 day' FROM p`;
    const personId = randomUUID();
    await db.person.create({ data: { id: personId, orgId: org.orgId, kycStatus: "approved" } });

    let first: Awaited<ReturnType<typeof liveCreateToken>> | undefined;
    for (const statistics of ["stale", "fresh"]) {
      if (statistics === "fresh") await db.$executeRawUnsafe("ANALYZE kyc_create_tokens");
      let live: Awaited<ReturnType<typeof liveCreateToken>> | undefined;
      const plans = await plansOf(async () => (live = await liveCreateToken(db, org.orgId, personId)));
      first ??= live;
      expect(live!.token).toBe(first!.token);
      const read = plans.reduce((n, p) => n + rowsRead(p.nodes, "kyc_create_tokens"), 0);
      expect(read, `${statistics}: ${plans.map((p) => p.plan).join("\n")}`).toBeLessThanOrEqual(1);
    }
    expect(await db.kycCreateToken.count({ where: { personId } })).toBe(1);
  });
});
