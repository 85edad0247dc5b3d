import { describe, expect, it } from "vitest";
import { walletSign } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { accountReadyToBind, approvedPerson } from "@/server/testing/kyc-flow";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

describe("screening at approval", () => {
  it("a PEP identity is approved with the PEP flag, a high-priority case and an aml.sanctions_hit event", async () => {
    const { url, db, org, api } = await setup();
    const { personDid } = await approvedPerson(url, api, "pep");
    const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`);
    expect(status.body).toMatchObject({ status: "approved", pepFlag: true, sanctionsFlag: false });
    expect(status.body.riskScore).toBeGreaterThan(0);
    const cases = await db.amlCase.findMany({ where: { orgId: org.orgId, subjectDid: personDid } });
    expect(cases).toEqual([expect.objectContaining({ status: "open", priority: "high" })]);
    const hit = await db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } });
    expect(hit.payload).toEqual({ personDid, severity: "high" });
    const result = await db.screeningResult.findFirstOrThrow({ where: { orgId: org.orgId, subjectRef: personDid } });
    expect(result.pepHit).toBe(true);
  });

  it("a sanctioned identity is rejected with the sanctions flag and a critical case", async () => {
    const { db, org, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const done = await api.post("/v1/sandbox/kyc/complete", { personDid: started.body.personDid, outcome: "sanctions" });
    expect(done.body.status).toBe("rejected");
    const person = await db.person.findUniqueOrThrow({ where: { id: started.body.personDid.split(":").pop() } });
    expect(person.sanctionsFlag).toBe(true);
    expect(await db.amlCase.findFirstOrThrow({ where: { orgId: org.orgId, subjectDid: started.body.personDid } })).toMatchObject({
      priority: "critical",
      status: "open",
    });
    const hit = await db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } });
    expect(hit.payload).toEqual({ personDid: started.body.personDid, severity: "critical" });
  });

  it("an approved person whose sanctions flag is up cannot be bound; the refusal is audited", async () => {
    const { url, db, org, api } = await setup();
    const s = await accountReadyToBind(url, api);
    await db.person.update({ where: { id: s.personDid.split(":").pop()! }, data: { sanctionsFlag: true } });
    const challenge = await api.post("/v1/bind/challenge", { accountDid: s.accountDid, personDid: s.personDid });
    const res = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: challenge.body.nonce,
      signature: walletSign(s.wallet.privateKey, challenge.body.payloadToSign),
    });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("aml_hold");
    expect(await db.accountBinding.count({ where: { orgId: org.orgId } })).toBe(0);
    expect((await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId }, orderBy: { seq: "desc" } })).data).toMatchObject({
      reason: "aml_hold",
    });
  });
});
