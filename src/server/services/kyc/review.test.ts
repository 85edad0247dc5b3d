import { describe, expect, it } from "vitest";
import { SANDBOX_IDENTITIES, sandboxCallback, signSandboxBody } from "@/server/providers/kyc/sandbox";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { applicantOf, approvedPerson } from "@/server/testing/kyc-flow";
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

  it("gives each sandbox applicant their own applicant id hash, and the fixture lists still match the PEP and sanctions persons", async () => {
    const { url, api } = await setup();
    const kycOf = async (personDid: string) => (await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`)).body;
    const screen = async (body: Record<string, unknown>) => {
      const res = await api.post("/v1/aml/screen-applicant", body);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };

    // Two approved persons: the same invented identity, two hashes; each hash names its own person.
    const [a, b] = [await approvedPerson(url, api), await approvedPerson(url, api)];
    const [ha, hb] = [(await kycOf(a.personDid)).applicantIdHash, (await kycOf(b.personDid)).applicantIdHash];
    expect(ha).toMatch(/^[0-9a-f]{64}$/);
    expect(hb).toMatch(/^[0-9a-f]{64}$/);
    expect(ha).not.toBe(hb);
    expect((await screen({ applicantIdHash: ha })).personDid).toBe(a.personDid);
    expect((await screen({ applicantIdHash: hb })).personDid).toBe(b.personDid);

    // Two PEP persons: their own hashes, and each screened at approval against the PEP fixture list.
    const peps = [await approvedPerson(url, api, "pep"), await approvedPerson(url, api, "pep")];
    const pepHashes = await Promise.all(peps.map(async (p) => (await kycOf(p.personDid)).applicantIdHash));
    expect(new Set([ha, hb, ...pepHashes]).size).toBe(4);
    for (const [i, p] of peps.entries()) {
      const stored = await screen({ applicantIdHash: pepHashes[i] });
      expect(stored.personDid).toBe(p.personDid);
      expect(stored.flags).toMatchObject({ pepFlag: true });
      expect(stored.screening).toMatchObject({ pep: true });
      expect(stored.screening.matches.map((m: { name: string }) => m.name)).toContain(SANDBOX_IDENTITIES.pep.fullName);
    }

    // The sanctions person: rejected with the flag; screening their hash with their identity hits the sanctions fixture list.
    const started = await api.post("/v1/kyc/start", {});
    const hosted = await call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantOf(started.body.verificationUrl)}`, {
      body: { outcome: "sanctions" },
    });
    expect(hosted.status, hosted.text).toBe(200);
    const sanctioned = await kycOf(started.body.personDid);
    expect(sanctioned).toMatchObject({ status: "rejected", sanctionsFlag: true });
    const { fullName, birthDate, country } = SANDBOX_IDENTITIES.sanctions;
    const fresh = await screen({ applicantIdHash: sanctioned.applicantIdHash, fullName, birthDate, country });
    expect(fresh.personDid).toBe(started.body.personDid);
    expect(fresh.screening).toMatchObject({ sanctions: true });
    expect(fresh.severity).toBe("critical");
  });
});
