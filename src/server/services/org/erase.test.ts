import { describe, expect, it } from "vitest";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { boundAccount } from "../../testing/kyc-flow";
import { eraseOrganization } from "./erase";

/** An organization with a person, a bound account, a second key, a webhook and audit entries, made through /v1. */
async function busyOrg(url: string) {
  const org = await createTestOrg({ plan: "institutional", name: `Erase ${Math.random().toString(36).slice(2, 8)}` });
  const admin = client(url, org.apiKey);
  const minted = await admin.post("/v1/admin/api-keys", { name: "backend" });
  expect(minted.status, minted.text).toBe(201);
  const api = client(url, minted.body.apiKey);
  await boundAccount(url, api);
  return { ...org, name: (await org.db.organization.findUniqueOrThrow({ where: { id: org.orgId } })).name };
}

/** Rows that still name the organization, per table: every table with an `orgId` column, and the keyed counters. */
async function leftovers(db: Awaited<ReturnType<typeof testServer>>["db"], orgId: string) {
  const tables = await db.$queryRaw<{ table_name: string }[]>`
    SELECT table_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'orgId'`;
  const found: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "${table_name}" WHERE "orgId" = $1::uuid`,
      orgId,
    );
    if (row!.n) found[table_name] = row!.n;
  }
  const [counted] = await db.$queryRaw<{ n: number }[]>`
    SELECT ((SELECT count(*) FROM usage_days WHERE bucket LIKE '%' || ${orgId} || '%')
      + (SELECT count(*) FROM rate_limit_windows WHERE bucket LIKE '%' || ${orgId} || '%')
      + (SELECT count(*) FROM idempotency_records WHERE scope LIKE '%' || ${orgId} || '%'))::int AS n`;
  if (counted!.n) found.keyed = counted!.n;
  const org = await db.organization.count({ where: { id: orgId } });
  if (org) found.organizations = org;
  return found;
}

describe("erasing an organization at the end of its agreement", () => {
  it("deletes every row of that organization in one go and leaves another organization whole", async () => {
    const { url, db } = await testServer();
    const gone = await busyOrg(url);
    const kept = await busyOrg(url);
    const keptBefore = await leftovers(db, kept.orgId);
    expect(Object.keys(await leftovers(db, gone.orgId))).toEqual(
      expect.arrayContaining(["people", "accounts", "audit_entries", "api_keys"]),
    );

    const receipt = await eraseOrganization(db, { organizationId: gone.orgId, confirmName: gone.name });
    expect(receipt.organizationId).toBe(gone.orgId);
    expect(receipt.rows.organizations).toBe(1);
    expect(receipt.rows.accounts).toBe(1);
    expect(receipt.rows.audit_entries).toBeGreaterThan(3);
    expect(await leftovers(db, gone.orgId)).toEqual({});
    expect(await leftovers(db, kept.orgId)).toEqual(keptBefore);
    // The other organization still works end to end.
    expect((await client(url, kept.apiKey).get("/v1/admin/api-keys")).status).toBe(200);
    // The erased organization's keys no longer open anything.
    expect((await client(url, gone.apiKey).get("/v1/admin/api-keys")).status).toBe(401);
  });

  it("refuses a name that is not the organization's, and an unknown id, deleting nothing", async () => {
    const { url, db } = await testServer();
    const org = await busyOrg(url);
    const before = await leftovers(db, org.orgId);
    await expect(eraseOrganization(db, { organizationId: org.orgId, confirmName: `${org.name} ` })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    await expect(eraseOrganization(db, { organizationId: crypto.randomUUID(), confirmName: org.name })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect(await leftovers(db, org.orgId)).toEqual(before);
  });
});
