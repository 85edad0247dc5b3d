import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/client";
import { person } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { recordScreeningHit } from ".";

// The evidence frozen into each hit (services/aml/evidence.ts): who, what matched, why.

/** An inactive list version with one entry, and a stored screening result that matched its alias. */
async function storedMatch(db: Db, orgId: string, subjectRef: string) {
  const version = await db.screeningListVersion.create({
    data: {
      list: `evidence-${randomUUID().slice(0, 8)}`,
      format: "ftm",
      fileHashes: ["f"],
      versionHash: "vh-1234",
      entryCount: 1,
      importedBy: "system:test",
    },
  });
  const entry = await db.screeningEntry.create({
    data: {
      listVersionId: version.id,
      externalId: "NK-123",
      name: "Ivan Petrovich Sidorov",
      aliases: ["Ivan Sidorov"],
      normalizedNames: ["ivan petrovich sidorov", "ivan sidorov"],
      birthDates: ["1961-04-12"],
      countries: ["RU"],
      topics: ["sanction"],
      programme: "UKRAINE-EO13660",
    },
  });
  const result = await db.screeningResult.create({
    data: {
      orgId,
      subjectType: "person",
      subjectRef,
      provider: "screening-lists",
      severity: "critical",
      score: 94,
      sanctionsHit: true,
      detail: {
        listVersions: [{ id: version.id, list: version.list, versionHash: "vh-1234" }],
        matches: [
          {
            entryId: entry.id,
            listVersionId: version.id,
            list: version.list,
            externalId: "NK-123",
            name: entry.name,
            topics: ["sanction"],
            programme: "UKRAINE-EO13660",
            score: 0.94,
            breakdown: { matchedName: "ivan sidorov", jaroWinkler: 1, phonetic: 1, name: 1, birthDate: -0.03, country: 0.03, total: 0.94 },
          },
        ],
      },
    },
  });
  return { version, entry, result };
}

describe("evidence on every hit", () => {
  it("keeps the verified subject, the matched entry with its list version, and the score in words; closed cases stay findable by name", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const p = await person(db, org.orgId);
    const { version, entry, result } = await storedMatch(db, org.orgId, p.did);
    const hit = await db.$transaction((tx) =>
      recordScreeningHit(tx, {
        orgId: org.orgId,
        personId: p.id,
        subjectDid: p.did,
        outcome: { sanctions: true, pep: false, severity: "critical", score: 94, resultId: result.id },
        actor: "system:kyc-provider:sandbox",
        subject: { name: "Ivan Sidorov", birthDate: "1962-04-11", country: "ru" },
      }),
    );
    const [view] = (await api.get("/v1/aml/cases")).body.cases;
    expect(view.caseId).toBe(hit!.caseId);
    const evidence = view.hits[0].evidence;
    expect(evidence.subject).toEqual({ name: "Ivan Sidorov", birthDate: "1962-04-11", country: "RU", source: "kyc_provider" });
    expect(evidence.matches).toEqual([
      {
        entryId: entry.id,
        externalId: "NK-123",
        name: "Ivan Petrovich Sidorov",
        aliases: ["Ivan Sidorov"],
        matchedName: "Ivan Sidorov",
        list: version.list,
        listVersionId: version.id,
        listVersionHash: "vh-1234",
        programme: "UKRAINE-EO13660",
        topics: ["sanction"],
        birthDates: ["1961-04-12"],
        countries: ["RU"],
        score: 94,
        explanation: "name matches an alias exactly; birth year differs by one; country matches",
      },
    ]);
    expect(evidence.provider).toBeNull();
    expect(evidence.summary).toContain("Screening matched Ivan Petrovich Sidorov");

    // The evidence is a snapshot: the list version going away later changes nothing.
    await db.screeningListVersion.delete({ where: { id: version.id } });
    const again = (await api.get(`/v1/aml/cases/${hit!.caseId}/timeline`)).body;
    expect(again.case.hits[0].evidence.matches[0].aliases).toEqual(["Ivan Sidorov"]);

    expect((await api.post(`/v1/aml/cases/${hit!.caseId}/confirm`, { reason: "Same person" })).status).toBe(200);
    const find = async (q: string, status = "closed") =>
      (await api.get(`/v1/aml/cases?status=${status}&q=${encodeURIComponent(q)}`)).body.cases.map((c: any) => c.caseId);
    expect(await find("sidorov")).toEqual([hit!.caseId]);
    expect(await find("Petrovich")).toEqual([hit!.caseId]);
    expect(await find("sidorov", "all")).toEqual([hit!.caseId]);
    expect(await find("sidorov", "open")).toEqual([]);
    expect(await find("nobody at all")).toEqual([]);
    expect(await find(p.id)).toEqual([hit!.caseId]);
    // The subject's own name is found by its words, and is not stored in the clear.
    const stored = await db.amlCaseHit.findFirstOrThrow({ where: { caseId: hit!.caseId } });
    expect(JSON.stringify(stored.evidence)).not.toContain("1962-04-11");
    expect(JSON.stringify(stored.evidence)).not.toMatch(/"name":"Ivan Sidorov"/);
    const other = await createTestOrg();
    expect((await client(url, other.apiKey).get("/v1/aml/cases?status=all&q=sidorov")).body.cases).toEqual([]);
  });

  it("a provider-raised hit stores and shows the provider's finding; a hit without a verified identity says so", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const p = await person(db, org.orgId);
    const hit = await db.$transaction((tx) =>
      recordScreeningHit(tx, {
        orgId: org.orgId,
        personId: p.id,
        subjectDid: p.did,
        outcome: { sanctions: true, pep: false, severity: "critical", score: 100, resultId: null },
        actor: "system:kyc-provider:sumsub",
        subject: { name: "María Fictitia Sandoval", birthDate: "1970-09-03", country: null },
        provider: { name: "sumsub", sanctions: true, pep: false, labels: ["SANCTIONS"] },
      }),
    );
    const api = client(url, org.apiKey);
    const t = (await api.get(`/v1/aml/cases/${hit!.caseId}/timeline`)).body;
    expect(t.case.hits[0].evidence).toEqual({
      subject: { name: "María Fictitia Sandoval", birthDate: "1970-09-03", country: "GH", source: "kyc_provider" },
      matches: [],
      provider: { name: "sumsub", sanctions: true, pep: false, labels: ["SANCTIONS"] },
      summary: "The KYC provider sumsub reported a sanctions match (SANCTIONS).",
    });
    expect(t.clearing.doesNotChange).toContain("A rejected KYC stays rejected unless the person is verified again.");
    expect(t.clearing.changes[0]).toMatch(/flags/);
    // Found by the words of the verified name (accents aside), not by a fragment of one.
    const find = async (q: string) => (await api.get(`/v1/aml/cases?q=${encodeURIComponent(q)}`)).body.cases.map((c: any) => c.caseId);
    expect(await find("sandoval")).toEqual([hit!.caseId]);
    expect(await find("Maria SANDOVAL")).toEqual([hit!.caseId]);
    expect(await find("sandov")).toEqual([]);
    expect(await find("maria lopez")).toEqual([]);
  });
});

describe("evidence through KYC approval (sandbox provider)", () => {
  it("a sanctions outcome stores the identity the provider verified, the provider's finding and the sandbox list match", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const started = await api.post("/v1/kyc/start", {});
    expect(started.status, started.text).toBe(200);
    const applicant = new URL(started.body.verificationUrl).pathname.split("/").pop()!;
    const done = await client(url).post(`/v1/sandbox/kyc/hosted/${applicant}`, { outcome: "sanctions" });
    expect(done.status, done.text).toBe(200);
    const [c] = (await api.get("/v1/aml/cases")).body.cases;
    expect(c).toMatchObject({ subjectDid: started.body.personDid, priority: "critical" });
    const evidence = c.hits[0].evidence;
    expect(evidence.subject).toEqual({ name: "Ivan Testovich Petrenko", birthDate: "1961-04-12", country: "UA", source: "kyc_provider" });
    expect(evidence.provider).toMatchObject({ name: "sandbox", sanctions: true });
    // A rejected KYC is not screened against the lists: the provider's finding is the evidence.
    expect(evidence.matches).toEqual([]);
    expect(evidence.summary).toContain("The KYC provider sandbox reported a sanctions match");
    expect(await db.amlCaseEvent.count({ where: { caseId: c.caseId } })).toBe(3);
  });

  it("a PEP outcome (approved, then screened) stores the sandbox list entry that matched and why", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const started = await api.post("/v1/kyc/start", {});
    const applicant = new URL(started.body.verificationUrl).pathname.split("/").pop()!;
    expect((await client(url).post(`/v1/sandbox/kyc/hosted/${applicant}`, { outcome: "pep" })).status).toBe(200);
    const [c] = (await api.get("/v1/aml/cases")).body.cases;
    const evidence = c.hits[0].evidence;
    expect(evidence.subject).toMatchObject({ name: "Maria Fictitia Sandoval", birthDate: "1970-09-03", source: "kyc_provider" });
    expect(evidence.matches[0]).toMatchObject({ name: expect.stringContaining("Sandoval"), topics: expect.arrayContaining(["role.pep"]) });
    expect(evidence.matches[0].explanation).toMatch(/^name matches .*; birth date matches exactly/);
    expect(evidence.matches[0].listVersionHash).toEqual(expect.any(String));
  });
});
