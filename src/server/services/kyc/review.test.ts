import { describe, expect, it } from "vitest";
import { sandboxCallback, signSandboxBody } from "@/server/providers/kyc/sandbox";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { applicantOf } from "@/server/testing/kyc-flow";
import { orgFootprint } from "@/server/testing/security-suite";

// Provider callbacks: the signed reviews a KYC provider sends (review.ts, handleProviderCallback).

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

describe("provider callbacks", () => {
  it("refuses a forged callback with 401 and writes nothing", async () => {
    const { url, db, org, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const { rawBody } = sandboxCallback({
      applicantId: applicantOf(started.body.verificationUrl),
      externalId: started.body.personDid.split(":").pop(),
      outcome: "approved",
    });
    const before = await orgFootprint(db, org.orgId);
    const events = await db.providerEvent.count();
    const forged = await call(url, "POST", "/v1/kyc/callbacks/sandbox", {
      rawBody: rawBody.toString(),
      headers: { "x-payload-digest": "0".repeat(64) },
    });
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe("UNAUTHORIZED");
    const unsigned = await call(url, "POST", "/v1/kyc/callbacks/sandbox", { rawBody: rawBody.toString() });
    expect(unsigned.status).toBe(401);
    // One byte changed after signing.
    const tampered = rawBody.toString().replace('"approved"', '"approvee"');
    const resigned = await call(url, "POST", "/v1/kyc/callbacks/sandbox", {
      rawBody: tampered,
      headers: { "x-payload-digest": signSandboxBody(rawBody) },
    });
    expect(resigned.status).toBe(401);
    expect(await orgFootprint(db, org.orgId)).toEqual(before);
    expect(await db.providerEvent.count()).toBe(events);
  });

  it("has no callback endpoint for a provider this deployment does not use", async () => {
    const { url } = await testServer();
    const res = await call(url, "POST", "/v1/kyc/callbacks/sumsub", { body: { type: "applicantReviewed" } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  it("applies a redelivered event once", async () => {
    const { url, db, org, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const cb = sandboxCallback({
      applicantId: applicantOf(started.body.verificationUrl),
      externalId: started.body.personDid.split(":").pop(),
      outcome: "approved",
    });
    const headers = Object.fromEntries(cb.headers);
    const first = await call(url, "POST", "/v1/kyc/callbacks/sandbox", { rawBody: cb.rawBody.toString(), headers });
    expect(first.body).toEqual({ received: true, duplicate: false });
    const audit = await db.auditEntry.count({ where: { orgId: org.orgId } });
    const second = await call(url, "POST", "/v1/kyc/callbacks/sandbox", { rawBody: cb.rawBody.toString(), headers });
    expect(second.body).toEqual({ received: true, duplicate: true });
    expect(await db.auditEntry.count({ where: { orgId: org.orgId } })).toBe(audit);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "kyc.approved" } })).toBe(1);
  });

  it("ignores a signed review of an applicant the person was never sent to", async () => {
    const { url, db, api } = await setup();
    const started = await api.post("/v1/kyc/start", {});
    const personId = started.body.personDid.split(":").pop();
    const cb = sandboxCallback({ applicantId: "sbx_notthisapplicant000", externalId: personId, outcome: "approved" });
    const res = await call(url, "POST", "/v1/kyc/callbacks/sandbox", {
      rawBody: cb.rawBody.toString(),
      headers: Object.fromEntries(cb.headers),
    });
    expect(res.status).toBe(200);
    expect((await db.person.findUniqueOrThrow({ where: { id: personId } })).kycStatus).toBe("pending");
  });
});
