import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
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
    expect(await db.person.findUniqueOrThrow({ where: { id: personId } })).toMatchObject({
      kycStatus: "approved",
      verifiedPhone: "+233204445566",
    });
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
  });
});
