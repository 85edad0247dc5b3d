import { describe, expect, it } from "vitest";
import { simulatedUpdateAuth } from "../../providers/chain/simulated-updateauth";
import { walletKey } from "../../testing/factories";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { checkStatusWithDigitalBazaar } from "../../testing/independent-status-checker";
import { boundAccount } from "../../testing/kyc-flow";
import { watchBindingKeys } from "../accounts";
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

  it("revokes every credential the organization issued first: the shared status lists stay published and say revoked", async () => {
    const { url, db } = await testServer();
    const gone = await busyOrg(url);
    const kept = await createTestOrg({ plan: "institutional" });
    const api = client(url, gone.apiKey);
    const active = await boundAccount(url, api);
    const suspended = await boundAccount(url, api);
    const revokedEarlier = await boundAccount(url, api);
    const other = await boundAccount(url, client(url, kept.apiKey));
    // Two accounts change hands: the key watch suspends their bindings; one is then revoked by the tenant.
    for (const b of [suspended, revokedEarlier]) await simulatedUpdateAuth(db, b.accountName, { ownerKeys: [walletKey().publicKey] });
    await watchBindingKeys(db);
    const bindingOf = async (b: { accountDid: string }) =>
      (await api.get(`/v1/accounts/${encodeURIComponent(b.accountDid)}`)).body.bindings[0];
    expect(await bindingOf(suspended)).toMatchObject({ status: "suspended", suspendedFor: ["key_changed"] });
    const revoke = await api.post(`/v1/bindings/${(await bindingOf(revokedEarlier)).bindingId}/revoke`, { reason: "sold" });
    expect(revoke.status, revoke.text).toBe(200);

    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    const status = (credential: unknown) =>
      checkStatusWithDigitalBazaar(credential, issuer, async (u) => {
        const res = await call(url, "GET", new URL(u).pathname);
        expect(res.status, u).toBe(200);
        return res.body;
      });
    expect(await status(active.credential)).toEqual({ verified: true, revocation: false, suspension: false });
    expect(await status(suspended.credential)).toEqual({ verified: true, revocation: false, suspension: true });
    expect(await status(revokedEarlier.credential)).toEqual({ verified: true, revocation: true, suspension: true });
    const issued = await db.accountBinding.findMany({ where: { orgId: gone.orgId }, select: { id: true } });
    expect(issued).toHaveLength(4);
    const positions = await db.credentialStatusEntry.findMany({
      where: { bindingId: { in: issued.map((b) => b.id) } },
      select: { listId: true, index: true },
    });
    expect(positions).toHaveLength(8);

    const receipt = await eraseOrganization(db, { organizationId: gone.orgId, confirmName: gone.name });
    expect(await db.accountBinding.count({ where: { orgId: gone.orgId } })).toBe(0);
    for (const b of [active, suspended, revokedEarlier]) {
      expect(await status(b.credential), b.accountDid).toEqual({ verified: true, revocation: true, suspension: false });
    }
    // busyOrg's own binding, the active one and the suspended one were not revoked before.
    expect(receipt.credentialsRevoked).toBe(3);
    // The positions stay taken, unlinked from the deleted bindings, so no later credential can land on a set bit.
    const after = await db.credentialStatusEntry.findMany({ where: { OR: positions.map((p) => ({ listId: p.listId, index: p.index })) } });
    expect(after.map((p) => [p.bindingId, p.purpose, p.set]).sort()).toEqual([
      ...Array(4).fill([null, "revocation", true]),
      ...Array(4).fill([null, "suspension", false]),
    ]);
    // Another organization's credential is untouched.
    expect(await status(other.credential)).toEqual({ verified: true, revocation: false, suspension: false });
  }, 60_000);

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
