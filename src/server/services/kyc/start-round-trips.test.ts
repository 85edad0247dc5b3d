import { describe, expect, it } from "vitest";
import { verifyChain } from "@/server/services/audit";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { approvedPerson } from "@/server/testing/kyc-flow";
import { countRoundTrips } from "@/server/testing/round-trips";

// POST /v1/kyc/start's database cost (docs/performance.md): the two KYC-start windows in one
// upsert, the monthly allowance in one statement, and the person, their key, the session and the
// audit entry in one grouped statement. Counted with every pg client of this process.
describe("POST /v1/kyc/start round trips", () => {
  it("costs at most 6 database round trips for a new person, and writes everything it did before", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await approvedPerson(url, api); // warm: the key cache, the allowance's month row, the chain head
    const counts: number[] = [];
    const dids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { value, count } = await countRoundTrips(() => api.post("/v1/kyc/start", {}));
      expect(value.status, value.text).toBe(200);
      counts.push(count);
      dids.push(value.body.personDid);
    }
    expect(Math.max(...counts), counts.join(",")).toBeLessThanOrEqual(6);

    // The same rows as before: a pending person with a sealed reference and a key, a sealed session, the audit entry.
    for (const did of dids) {
      const id = did.split(":").pop()!;
      const person = await db.person.findUniqueOrThrow({ where: { id } });
      expect(person).toMatchObject({ kycStatus: "pending", kycProvider: "sandbox", kycLevel: "basic-kyc" });
      expect(person.providerApplicantId).toMatch(/^p1\./);
      expect((await db.personKey.findUniqueOrThrow({ where: { personId: id } })).keySealed).toBeTruthy();
      const session = await db.kycSession.findFirstOrThrow({ where: { personId: id } });
      expect(session.providerSessionId).toMatch(/^p1\./);
      expect(session.providerSessionIdHash).toBeTruthy();
      expect(session.clientIp).toMatch(/^p1\./);
      const entry = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "kyc.started", subject: did } });
      expect(entry.data).toMatchObject({ sessionId: session.id, provider: "sandbox", personFirst: true });
    }
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
    const month = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
    const used = await db.usageDay.findUniqueOrThrow({ where: { bucket_day: { bucket: `verifications:${org.orgId}`, day: month } } });
    expect(used.count).toBe(6);
  });
});
