import { describe, expect, it } from "vitest";
import { walletKey } from "../../testing/factories";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { plansOf, rowsRead } from "../../testing/query-plan";

// KYC reads that name one person or one account read their sessions only, however many the
// organization holds, with the planner's statistics taken before it grew (docs/performance.md,
// "Statistics that lag"). Each fails on the code before (3,000 rows and more).

const bulkSessions = (db: Awaited<ReturnType<typeof testServer>>["db"], orgId: string) => db.$executeRaw`
  WITH p AS (INSERT INTO people (id, "orgId", "kycStatus", "updatedAt")
             SELECT gen_random_uuid(), ${orgId}::uuid, 'pending'::"KycStatus", now() FROM generate_series(1, 3000) RETURNING id)
  INSERT INTO kyc_sessions (id, "orgId", "personId", provider, level, "providerSessionId", "verificationUrl", "expiresAt", "createdAt", "updatedAt")
  SELECT gen_random_uuid(), ${orgId}::uuid, id, 'sandbox', 'basic-kyc', 'other', 'https://example.test', now() + interval '1 day',
         now() + interval '1 minute', now() FROM p`;

const sessionsRead = (plans: Awaited<ReturnType<typeof plansOf>>) => plans.reduce((n, p) => n + rowsRead(p.nodes, "kyc_sessions"), 0);

describe("KYC reads as the organization grows", () => {
  it("a status refresh reads the person's sessions, and a start for an account reads the account's", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const started = await api.post("/v1/kyc/start", {});
    expect(started.status, started.text).toBe(200);
    const personDid = started.body.personDid as string;
    const created = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey });
    expect(created.status, created.text).toBe(201);
    await db.$executeRawUnsafe("ANALYZE kyc_sessions");
    // 3,000 sessions of other people, all newer than the person's.
    await bulkSessions(db, org.orgId);

    let refreshed = 0;
    const refresh = await plansOf(async () => {
      refreshed = (await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}&refresh=1`)).status;
    });
    expect(refreshed).toBe(200);
    expect(sessionsRead(refresh), refresh.map((p) => p.plan).join("\n")).toBeLessThanOrEqual(2);

    let start: { status: number; text: string } | undefined;
    const forAccount = await plansOf(async () => {
      start = await api.post("/v1/kyc/start", { accountDid: created.body.accountDid }, { headers: { "x-forwarded-for": "10.9.9.9" } });
    });
    expect(start!.status, start!.text).toBe(200);
    expect(sessionsRead(forAccount), forAccount.map((p) => p.plan).join("\n")).toBeLessThanOrEqual(2);
  });
});
