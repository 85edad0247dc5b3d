import { describe, expect, it } from "vitest";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { applicantOf } from "@/server/testing/kyc-flow";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

describe("KYC start and status", () => {
  it("honours a redirect only under /identity on the public host and ignores any other", async () => {
    const { api } = await setup();
    const cases: Array<[string, string | null]> = [
      ["http://localhost:3000/identity/done?x=1", "http://localhost:3000/identity/done?x=1"],
      ["http://localhost:3000/identity", "http://localhost:3000/identity"],
      ["http://localhost:3000/identityx", null],
      ["http://localhost:3000/identity/../admin", null],
      ["https://localhost:3000/identity/done", null],
      ["http://evil.example/identity/done", null],
      ["http://user:pw@localhost:3000/identity/done", null],
      ["javascript:alert(1)", null],
      ["/identity/done", null],
    ];
    for (const [given, honoured] of cases) {
      const res = await api.post("/v1/kyc/start", { redirectUrl: given });
      expect(res.status, given).toBe(200);
      expect(res.body.redirectUrl, given).toBe(honoured);
    }
  });

  it("keeps the client's address sealed under the person's key, shown in their access export, gone with their erasure", async () => {
    const { db, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    expect(started.status, started.text).toBe(200);
    const personDid = started.body.personDid as string;
    const personId = personDid.split(":").pop()!;
    const [session] = await db.$queryRaw<{ clientIp: string }[]>`SELECT "clientIp" FROM kyc_sessions WHERE "personId" = ${personId}::uuid`;
    expect(session!.clientIp).toMatch(new RegExp(`^p1\\.${personId}\\.`));
    const exported = await api.get(`/v1/people/${encodeURIComponent(personDid)}/export`);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.data.verifications.map((v: { clientIp: string }) => v.clientIp)).toEqual(["127.0.0.1"]);
    expect((await api.post(`/v1/people/${encodeURIComponent(personDid)}/erase`, {})).status).toBe(200);
    expect((await db.kycSession.findFirstOrThrow({ where: { personId } })).clientIp).toBeNull();
  });

  it("answers 404 for another organization's person and for a DID that is not ours", async () => {
    const { url, api } = await setup();
    const other = await createTestOrg();
    const started = await client(url, other.apiKey).post("/v1/kyc/start", {});
    expect((await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(started.body.personDid)}`)).status).toBe(404);
    expect(
      (await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(`did:web:other.example:people:${crypto.randomUUID()}`)}`)).status,
    ).toBe(404);
  });

  it("spends the per-IP KYC-start budget: the 21st start in an hour from one address is 429, with Retry-After", async () => {
    const { api } = await setup();
    for (let i = 0; i < 20; i++) expect((await api.post("/v1/kyc/start", {})).status).toBe(200);
    const refused = await api.post("/v1/kyc/start", {});
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("spends the organization's budget of 100 starts an hour", async () => {
    const { db, org, api } = await setup();
    const windowStart = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    await db.rateLimitWindow.create({
      data: { bucket: `kyc-start:org:${org.orgId}`, windowStart, count: 100, expiresAt: new Date(windowStart.getTime() + 3_600_000) },
    });
    const refused = await api.post("/v1/kyc/start", {});
    expect(refused.status).toBe(429);
    expect(await db.person.count({ where: { orgId: org.orgId } })).toBe(0);
  });

  it("replays an idempotent start instead of starting twice", async () => {
    const { db, org, api } = await setup();
    const headers = { "idempotency-key": `kyc-${crypto.randomUUID()}` };
    const a = await api.post("/v1/kyc/start", {}, { headers });
    const b = await api.post("/v1/kyc/start", {}, { headers });
    expect(b.body).toEqual(a.body);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(await db.kycSession.count({ where: { orgId: org.orgId } })).toBe(1);
  });

  it("moves a person through retry and rejection; a rejected person cannot start again for the account", async () => {
    const { url, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const personDid = started.body.personDid;
    const retry = await api.post("/v1/sandbox/kyc/complete", { personDid, outcome: "retry" });
    expect(retry.body.status).toBe("retry");
    const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}&refresh=1`);
    expect(status.body.status).toBe("retry");
    expect(status.body.createToken).toBeUndefined();
    const rejected = await call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantOf(started.body.verificationUrl)}`, {
      body: { outcome: "rejected" },
    });
    expect(rejected.body.status).toBe("rejected");
    // Final: a later approval of the same applicant changes nothing.
    const late = await api.post("/v1/sandbox/kyc/complete", { personDid, outcome: "approved" });
    expect(late.body.status).toBe("rejected");
  });
});
