import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { issuerDid } from "@/server/crypto/issuer-keys";
import { openPersonal } from "@/server/crypto/person-box";
import { getDb } from "@/server/db/client";
import { personDidOf } from "@/server/platform/account-ref";
import { verifiedPhoneHash } from "@/server/platform/contact-address";
import { migratePersonData } from "@/server/services/people";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { fakeSumsubForKyc } from "@/server/testing/sumsub-kyc";

// A phone number the KYC provider confirmed (Sumsub's applicant `phone`, set by its phone
// verification step) is recorded on the approved person, so phone OTP confirm can name them.

const fakeSumsub = fakeSumsubForKyc();

describe("a phone verified by the KYC provider", () => {
  it("is recorded on the approved person, and phone OTP confirm then names that person", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const started = await api.post("/v1/kyc/start", {});
    expect(started.status, started.text).toBe(200);
    const personId = (started.body.personDid as string).split(":").pop()!;
    const applicant = [...fakeSumsub().applicants.values()].find((a) => a.externalUserId === personId)!;
    fakeSumsub().review(applicant.id, {
      answer: "GREEN",
      phone: "+233 20 444 5566",
      info: { firstName: "Ama", lastName: "Mensah", dob: "1990-01-02", country: "GHA" },
    });
    expect(await fakeSumsub().send(`${url}/v1/kyc/callbacks/sumsub`, fakeSumsub().reviewedCallback(applicant.id))).toBe(200);
    // Sealed under the person's key, found by a keyed hash: the number is nowhere in clear.
    const stored = await db.person.findUniqueOrThrow({ where: { id: personId } });
    expect(stored).toMatchObject({ kycStatus: "approved", verifiedPhoneHash: verifiedPhoneHash(org.orgId, "+233204445566") });
    expect(stored.verifiedPhone).toMatch(new RegExp(`^p1\\.${personId}\\.`));
    expect(stored.verifiedPhoneHash).not.toContain("4445566");
    expect(stored.providerApplicantId).toMatch(/^p1\./);
    const key = await db.personKey.findUniqueOrThrow({ where: { personId } });
    expect(openPersonal(stored.verifiedPhone!, key.keySealed)).toBe("+233204445566");
    expect(openPersonal(stored.providerApplicantId!, key.keySealed)).toBe(applicant.id);
    const approvedEntry = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "kyc.approved" } });
    expect(approvedEntry.data).toMatchObject({ verifiedPhoneRecorded: true });
    expect(JSON.stringify(approvedEntry.data)).not.toContain("4445566");

    const start = await api.post("/v1/phone/otp/start", { phone: "+233204445566" });
    const sms = await db.devOutboxMessage.findFirstOrThrow({
      where: { to: "+233204445566", channel: "phone" },
      orderBy: { createdAt: "desc" },
    });
    const confirm = await api.post("/v1/phone/otp/confirm", { challengeId: start.body.challengeId, code: /(\d{6})/.exec(sms.body)![1] });
    expect(confirm.body).toMatchObject({ personDid: started.body.personDid, softIdentity: true });

    // The access export shows the number opened.
    const exported = await api.get(`/v1/people/${encodeURIComponent(started.body.personDid)}/export`);
    expect(exported.body.data.person.verifiedPhone).toBe("+233204445566");
  });

  it("stays the first person's: another person of the organization verified with the same number does not get it", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const approve = async (firstName: string) => {
      const started = await api.post("/v1/kyc/start", {});
      const personId = (started.body.personDid as string).split(":").pop()!;
      const applicant = [...fakeSumsub().applicants.values()].find((a) => a.externalUserId === personId)!;
      fakeSumsub().review(applicant.id, {
        answer: "GREEN",
        phone: "+233 20 777 8899",
        info: { firstName, lastName: "Owusu", dob: "1991-03-04", country: "GHA" },
      });
      expect(await fakeSumsub().send(`${url}/v1/kyc/callbacks/sumsub`, fakeSumsub().reviewedCallback(applicant.id))).toBe(200);
      return { personId, personDid: started.body.personDid as string };
    };
    const first = await approve("Yaw");
    const second = await approve("Kojo");
    const rows = await db.person.findMany({ where: { id: { in: [first.personId, second.personId] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(first.personId)!.verifiedPhoneHash).toBe(verifiedPhoneHash(org.orgId, "+233207778899"));
    expect(byId.get(second.personId)).toMatchObject({ kycStatus: "approved", verifiedPhone: null, verifiedPhoneHash: null });
    // In another organization the same number hashes differently.
    expect(verifiedPhoneHash(randomUUID(), "+233207778899")).not.toBe(byId.get(first.personId)!.verifiedPhoneHash);
  });

  it("written in clear before it was sealed, is still found, then sealed and hashed by the person data migration", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const person = await db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", verifiedPhone: "+233206660011" } });
    const personDid = personDidOf(issuerDid(), person.id);
    const askByPhone = async () => {
      const start = await api.post("/v1/phone/otp/start", { phone: "+233206660011" });
      const sms = await db.devOutboxMessage.findFirstOrThrow({
        where: { to: "+233206660011", channel: "phone" },
        orderBy: { createdAt: "desc" },
      });
      return (await api.post("/v1/phone/otp/confirm", { challengeId: start.body.challengeId, code: /(\d{6})/.exec(sms.body)![1] })).body;
    };
    expect(await askByPhone()).toMatchObject({ personDid, softIdentity: true });
    await migratePersonData(db);
    const stored = await db.person.findUniqueOrThrow({ where: { id: person.id } });
    expect(stored.verifiedPhone).toMatch(new RegExp(`^p1\\.${person.id}\\.`));
    expect(stored.verifiedPhoneHash).toBe(verifiedPhoneHash(org.orgId, "+233206660011"));
    const key = await db.personKey.findUniqueOrThrow({ where: { personId: person.id } });
    expect(openPersonal(stored.verifiedPhone!, key.keySealed)).toBe("+233206660011");
    expect(await askByPhone()).toMatchObject({ personDid, softIdentity: true });
  });
});
