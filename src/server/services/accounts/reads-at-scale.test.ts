import { describe, expect, it } from "vitest";
import { bulkAccounts, bulkBindings } from "../../testing/bulk";
import { walletKey } from "../../testing/factories";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { boundAccount } from "../../testing/kyc-flow";
import { plansOf, rowsRead } from "../../testing/query-plan";

// Reads of accounts and bindings that name one device or one person read those rows only, however
// many the organization holds, with the planner's statistics taken before it grew
// (docs/performance.md, "Statistics that lag"). Each fails on the code before (3,000 rows and more).

describe("account reads as the organization grows", () => {
  it("a free create with a device fingerprint counts that device's accounts without reading the organization's", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    await db.$executeRawUnsafe("ANALYZE accounts");
    await bulkAccounts(db, org.orgId, 3000, { prefix: "dev", devices: true });
    const api = client(url, org.apiKey);
    let status = 0;
    const plans = await plansOf(async () => {
      status = (await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, deviceFingerprint: "fp-new-device" })).status;
    });
    expect(status).toBe(201);
    const read = plans.reduce((n, p) => n + rowsRead(p.nodes, "accounts"), 0);
    expect(read, plans.map((p) => p.plan).join("\n")).toBeLessThanOrEqual(1);
  });

  it("a person's DID document reads that person's bindings only", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { personDid } = await boundAccount(url, api);
    const personId = personDid.split(":").pop()!;
    await db.$executeRawUnsafe("ANALYZE account_bindings");
    // 3,000 bindings of other people of another organization.
    const other = await createTestOrg();
    await bulkBindings(db, other.orgId, 3000);
    let bindings: unknown[] = [];
    const plans = await plansOf(async () => {
      const doc = await client(url).get(`/people/${personId}/did.json`);
      expect(doc.status, doc.text).toBe(200);
      bindings = doc.body.bindings;
    });
    expect(bindings).toHaveLength(1);
    const read = plans.reduce((n, p) => n + rowsRead(p.nodes, "account_bindings"), 0);
    expect(read, plans.map((p) => p.plan).join("\n")).toBeLessThanOrEqual(1);
  });
});
