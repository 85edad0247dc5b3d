import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@/server/crypto/hash";
import { walletKey, walletSign } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { accountReadyToBind } from "@/server/testing/kyc-flow";
import { orgFootprint } from "@/server/testing/security-suite";

type Api = ReturnType<typeof client>;

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

describe("bind refusals", () => {
  async function challengeFor(url: string, api: Api) {
    const subject = await accountReadyToBind(url, api);
    const challenge = await api.post("/v1/bind/challenge", { accountDid: subject.accountDid, personDid: subject.personDid });
    return { ...subject, challenge: challenge.body as { nonce: string; payloadToSign: string } };
  }

  it("refuses a signature by another key with 400 INVALID_SIGNATURE and writes nothing; the nonce stays usable", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    const before = await orgFootprint(db, org.orgId);
    const wrong = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(walletKey().privateKey, s.challenge.payloadToSign),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe("INVALID_SIGNATURE");
    expect(await orgFootprint(db, org.orgId)).toEqual(before);
    const right = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    });
    expect(right.status, right.text).toBe(200);
  });

  it("refuses an unapproved person with 409 and writes nothing", async () => {
    const { url, db, org, api } = await setup();
    const s = await accountReadyToBind(url, api);
    const pending = await api.post("/v1/kyc/start", {});
    const before = await orgFootprint(db, org.orgId);
    const challenge = await api.post("/v1/bind/challenge", { accountDid: s.accountDid, personDid: pending.body.personDid });
    expect(challenge.status).toBe(409);
    expect(challenge.body.error.details.reason).toBe("person_not_approved");
    expect(await orgFootprint(db, org.orgId)).toEqual(before);
    // A nonce issued while approved, confirmed after the status changed, is refused just the same.
    const ok = await api.post("/v1/bind/challenge", { accountDid: s.accountDid, personDid: s.personDid });
    const personId = s.personDid.split(":").pop()!;
    await db.person.update({ where: { id: personId }, data: { kycStatus: "in_review" } });
    const mid = await orgFootprint(db, org.orgId);
    const refused = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: ok.body.nonce,
      signature: walletSign(s.wallet.privateKey, ok.body.payloadToSign),
    });
    expect(refused.status).toBe(409);
    expect(await orgFootprint(db, org.orgId)).toEqual(mid);
  });

  it("refuses a reused nonce with 409 nonce_used and writes nothing more", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    const body = {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    };
    expect((await api.post("/v1/bind/confirm", body)).status).toBe(200);
    const before = await orgFootprint(db, org.orgId);
    const again = await api.post("/v1/bind/confirm", body);
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe("nonce_used");
    expect(await orgFootprint(db, org.orgId)).toEqual(before);
  });

  it("binds once when 20 confirms of one nonce arrive together", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    const body = {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    };
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.post("/v1/bind/confirm", body)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    expect(await db.accountBinding.count({ where: { orgId: org.orgId } })).toBe(1);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "identity.bound" } })).toBe(1);
  });

  it("applies the country policy at bind: a refusal is audited and binds nothing", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    expect((await api.put("/v1/admin/country-policy", { blockedCountries: ["GH"] })).status).toBe(200);
    const res = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("country_not_allowed");
    expect(await db.accountBinding.count({ where: { orgId: org.orgId } })).toBe(0);
    const last = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId }, orderBy: { seq: "desc" } });
    expect(last.action).toBe("bind.refused");
    expect(last.data).toMatchObject({ reason: "country_policy", rule: 1, country: "GH" });
    // Lifting the block lets the same nonce through: the refusal did not spend it.
    expect((await api.put("/v1/admin/country-policy", { blockedCountries: [] })).status).toBe(200);
    const ok = await api.post("/v1/bind/confirm", {
      accountDid: s.accountDid,
      personDid: s.personDid,
      nonce: s.challenge.nonce,
      signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it("refuses a risk deny with 403 risk_denied, records the assessment and the refusal, binds nothing; without the device the nonce binds", async () => {
    const { url, db, org, api } = await setup();
    const s = await challengeFor(url, api);
    const fp = `fp-${randomUUID()}`;
    // One device used by five subjects within the hour: shared device (60) + device velocity (25).
    await db.riskEvent.createMany({
      data: Array.from({ length: 5 }, (_, i) => ({
        orgId: org.orgId,
        kind: "manual",
        decision: "allow",
        deviceFingerprintHash: sha256Hex(fp),
        subjectRef: `person-${i}`,
        createdAt: new Date(Date.now() - 1000 - i),
      })),
    });
    const confirm = (deviceFingerprint?: string) =>
      api.post("/v1/bind/confirm", {
        accountDid: s.accountDid,
        personDid: s.personDid,
        nonce: s.challenge.nonce,
        signature: walletSign(s.wallet.privateKey, s.challenge.payloadToSign),
        ...(deviceFingerprint ? { deviceFingerprint } : {}),
      });
    const denied = await confirm(fp);
    expect(denied.status, denied.text).toBe(403);
    expect(denied.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "risk_denied" } });
    expect(await db.accountBinding.count({ where: { orgId: org.orgId } })).toBe(0);
    const last = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId }, orderBy: { seq: "desc" } });
    expect(last).toMatchObject({ action: "bind.refused", subject: s.accountDid, data: { reason: "risk_denied", score: 85 } });
    const assessed = () => db.riskEvent.findMany({ where: { orgId: org.orgId, kind: "bind" }, orderBy: { createdAt: "asc" } });
    expect((await assessed()).map((e) => [e.subjectRef, e.decision, e.score])).toEqual([[s.accountDid, "deny", 85]]);

    // Without the device the assessment is read with the confirm's other reads and written with the binding.
    const ok = await confirm();
    expect(ok.status, ok.text).toBe(200);
    expect(await db.accountBinding.count({ where: { orgId: org.orgId, status: "active" } })).toBe(1);
    expect((await assessed()).map((e) => [e.subjectRef, e.decision])).toEqual([
      [s.accountDid, "deny"],
      [s.accountDid, "allow"],
    ]);
  });
});
