import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
import { resetKycConfigCache } from "@/server/providers/kyc";
import { type FakeSumsub, startFakeSumsub } from "@/server/testing/fake-sumsub";
import { client, createTestOrg, testServer } from "@/server/testing/harness";

// A phone number the KYC provider confirmed (Sumsub's applicant `phone`, set by its phone
// verification step) is recorded on the approved person, so phone OTP confirm can name them.

let sumsub: FakeSumsub;
const saved = { ...process.env };

beforeAll(async () => {
  sumsub = await startFakeSumsub();
  Object.assign(process.env, {
    KYC_PROVIDERS: "sumsub",
    SUMSUB_APP_TOKEN: sumsub.appToken,
    SUMSUB_SECRET_KEY: sumsub.secretKey,
    SUMSUB_WEBHOOK_SECRET: sumsub.webhookSecret,
    SUMSUB_API_URL: sumsub.url,
  });
  resetKycConfigCache();
});
afterAll(async () => {
  for (const k of ["KYC_PROVIDERS", "SUMSUB_APP_TOKEN", "SUMSUB_SECRET_KEY", "SUMSUB_WEBHOOK_SECRET", "SUMSUB_API_URL"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetKycConfigCache();
  await sumsub.close();
});

describe("a phone verified by the KYC provider", () => {
  it("is recorded on the approved person, and phone OTP confirm then names that person", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const started = await api.post("/v1/kyc/start", {});
    expect(started.status, started.text).toBe(200);
    const personId = (started.body.personDid as string).split(":").pop()!;
    const applicant = [...sumsub.applicants.values()].find((a) => a.externalUserId === personId)!;
    sumsub.review(applicant.id, {
      answer: "GREEN",
      phone: "+233 20 444 5566",
      info: { firstName: "Ama", lastName: "Mensah", dob: "1990-01-02", country: "GHA" },
    });
    expect(await sumsub.send(`${url}/v1/kyc/callbacks/sumsub`, sumsub.reviewedCallback(applicant.id))).toBe(200);
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
