import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { issuerDid } from "@/server/crypto/issuer-keys";
import { openPersonal } from "@/server/crypto/person-box";
import { providerReferenceHash } from "@/server/crypto/provider-reference";
import { getDb } from "@/server/db/client";
import { personDidOf } from "@/server/platform/account-ref";
import { migratePersonData } from "@/server/services/people";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { applicantOf, approvedPerson } from "@/server/testing/kyc-flow";
import { fakeSumsubForKyc } from "@/server/testing/sumsub-kyc";

// A verification's provider reference (the applicant id) and hosted link are sealed under the
// person's data key; callbacks find the session by a keyed hash of the provider and the reference
// (docs/data-protection.md).

type RawSession = { providerSessionId: string | null; providerSessionIdHash: string | null; verificationUrl: string };

async function rawSessions(personId: string) {
  const db = await getDb();
  return db.$queryRaw<RawSession[]>`
    SELECT "providerSessionId", "providerSessionIdHash", "verificationUrl" FROM kyc_sessions WHERE "personId" = ${personId}::uuid`;
}

async function personKeySealed(personId: string) {
  const db = await getDb();
  return (await db.personKey.findUniqueOrThrow({ where: { personId } })).keySealed;
}

function expectSealed(row: RawSession, personId: string, provider: string, reference: string) {
  const sealed = new RegExp(`^p1\\.${personId}\\.`);
  expect(row.providerSessionId).toMatch(sealed);
  expect(row.verificationUrl).toMatch(sealed);
  expect(row.providerSessionIdHash).toBe(providerReferenceHash(provider, reference));
  expect(JSON.stringify(row)).not.toContain(reference);
}

describe("a verification's provider reference, with Sumsub", () => {
  const fakeSumsub = fakeSumsubForKyc();

  it("is stored sealed with its keyed hash, the callback still finds the session and approves, the export opens it", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const started = await api.post("/v1/kyc/start", {});
    expect(started.status, started.text).toBe(200);
    const personId = (started.body.personDid as string).split(":").pop()!;
    const applicant = [...fakeSumsub().applicants.values()].find((a) => a.externalUserId === personId)!;
    // The tenant is answered with the provider's link, never the stored one.
    expect(started.body.verificationUrl).toMatch(/^https?:\/\//);

    const [row] = await rawSessions(personId);
    expectSealed(row!, personId, "sumsub", applicant.id);
    const key = await personKeySealed(personId);
    expect(openPersonal(row!.providerSessionId!, key)).toBe(applicant.id);
    expect(openPersonal(row!.verificationUrl, key)).toBe(started.body.verificationUrl);
    // Another provider's reference with the same id hashes differently.
    expect(providerReferenceHash("veriff", applicant.id)).not.toBe(row!.providerSessionIdHash);

    fakeSumsub().review(applicant.id, {
      answer: "GREEN",
      info: { firstName: "Akosua", lastName: "Darko", dob: "1992-05-06", country: "GHA" },
    });
    expect(await fakeSumsub().send(`${url}/v1/kyc/callbacks/sumsub`, fakeSumsub().reviewedCallback(applicant.id))).toBe(200);
    const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(started.body.personDid)}`);
    expect(status.body.status).toBe("approved");
    const db = await getDb();
    expect((await db.kycSession.findFirstOrThrow({ where: { personId } })).status).toBe("approved");

    const exported = await api.get(`/v1/people/${encodeURIComponent(started.body.personDid)}/export`);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.data.verifications.map((v: { providerReference: string }) => v.providerReference)).toEqual([applicant.id]);
  });
});

describe("a verification's provider reference, in the sandbox", () => {
  it("is stored sealed, the hosted flow still finds the session and approves, and the erasure blanks it with its hash", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { personDid, started } = await approvedPerson(url, api);
    const personId = personDid.split(":").pop()!;
    const applicantId = applicantOf(started.verificationUrl);
    const [row] = await rawSessions(personId);
    expectSealed(row!, personId, "sandbox", applicantId);
    // An unknown reference finds nothing.
    const unknown = await call(url, "POST", `/v1/sandbox/kyc/hosted/sbx_${randomUUID().replaceAll("-", "")}`, {
      body: { outcome: "approved" },
    });
    expect(unknown.status).toBe(404);

    // The erasure blanks the reference, its hash and the link.
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
    const erased = await api.post(`/v1/people/${encodeURIComponent(personDid)}/erase`, {});
    expect(erased.status, erased.text).toBe(200);
    expect(await rawSessions(personId)).toEqual([{ providerSessionId: null, providerSessionIdHash: null, verificationUrl: "" }]);
    expect((await call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantId}`, { body: { outcome: "approved" } })).status).toBe(404);
  });

  it("written in clear before it was sealed, is still found, then sealed and hashed by the person data migration, and still found", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const person = await db.person.create({ data: { orgId: org.orgId, kycStatus: "pending", kycProvider: "sandbox" } });
    const personDid = personDidOf(issuerDid(), person.id);
    const applicantId = `sbx_${randomUUID().replaceAll("-", "")}`;
    const link = `http://localhost:3000/identity/sandbox/${applicantId}`;
    // As the service wrote it before references were sealed: in clear, with no hash.
    await db.$executeRaw`
      INSERT INTO kyc_sessions (id, "orgId", "personId", provider, level, "providerSessionId", "verificationUrl", status, "expiresAt", "updatedAt")
      VALUES (${randomUUID()}::uuid, ${org.orgId}::uuid, ${person.id}::uuid, 'sandbox', 'basic-kyc', ${applicantId}, ${link}, 'pending',
        now() + interval '1 day', now())`;
    const hosted = (outcome: string) => call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantId}`, { body: { outcome } });
    const statusOf = async () => (await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`)).body.status;

    // Found by value (the hosted page, then the callback it delivers).
    const first = await hosted("retry");
    expect(first.status, first.text).toBe(200);
    expect(await statusOf()).toBe("retry");

    await migratePersonData(db);
    const [row] = await rawSessions(person.id);
    expectSealed(row!, person.id, "sandbox", applicantId);
    const key = await personKeySealed(person.id);
    expect(openPersonal(row!.providerSessionId!, key)).toBe(applicantId);
    expect(openPersonal(row!.verificationUrl, key)).toBe(link);

    // Found by its keyed hash now.
    const second = await hosted("approved");
    expect(second.status, second.text).toBe(200);
    expect(await statusOf()).toBe("approved");

    const exported = await api.get(`/v1/people/${encodeURIComponent(personDid)}/export`);
    expect(exported.body.data.verifications.map((v: { providerReference: string }) => v.providerReference)).toEqual([applicantId]);
  });
});
