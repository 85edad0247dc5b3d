import { describe, expect, it } from "vitest";
import { openStored } from "../../crypto/person-box";
import { seal } from "../../crypto/secret-box";
import { createTestOrg } from "../../testing/harness";
import { evidenceView } from "../aml/evidence";
import { rememberScreeningSubject } from "../screening";
import { migratePersonData, resealSubject } from "./person-data-migration";

// Rows written before person data keys existed, sealed with BI_ENCRYPTION_KEY alone, are
// re-sealed under each person's key by a pass that is safe while serving (docs/data-protection.md,
// "Crypto-shredding"): readers open both forms, a newer write is never overwritten, and a pass can
// stop and continue anywhere.

const identity = { name: "Nana Serwaa Bonsu", birthDate: "1983-03-17", country: "GH" };

async function legacyPerson(org: Awaited<ReturnType<typeof createTestOrg>>) {
  const person = await org.db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", country: "GH" } });
  await org.db.screeningSubject.create({ data: { personId: person.id, orgId: org.orgId, querySealed: seal(JSON.stringify(identity)) } });
  const kase = await org.db.amlCase.create({
    data: {
      orgId: org.orgId,
      personId: person.id,
      subjectDid: `did:web:localhost:people:${person.id}`,
      priority: "high",
      reason: "fixture",
      openedBy: "system:test",
      status: "cleared",
      closedAt: new Date(),
    },
  });
  const evidence = {
    subject: {
      sealed: seal(JSON.stringify({ name: identity.name, birthDate: identity.birthDate })),
      country: "GH",
      source: "kyc_provider",
    },
    matches: [],
    provider: null,
    summary: "fixture",
  };
  const hit = await org.db.amlCaseHit.create({ data: { orgId: org.orgId, caseId: kase.id, severity: "high", evidence } });
  return { person, hit };
}

describe("the person data migration", () => {
  it("re-seals legacy subjects and evidence under the person's key, readable the same before and after, and leaves unreadable rows counted", async () => {
    const org = await createTestOrg();
    const { person, hit } = await legacyPerson(org);
    const other = await org.db.person.create({ data: { orgId: org.orgId, kycStatus: "approved" } });
    // Sealed with a key id this deployment does not have: unreadable, left alone.
    await org.db.screeningSubject.create({ data: { personId: other.id, orgId: org.orgId, querySealed: "v1.retired.AAAA.BBBB" } });

    // Before: read as BI_ENCRYPTION_KEY seals them.
    const subjectBefore = await org.db.screeningSubject.findUniqueOrThrow({ where: { personId: person.id } });
    expect(JSON.parse(openStored(subjectBefore.querySealed, null)!)).toEqual(identity);
    expect(evidenceView(hit.evidence)?.subject).toMatchObject({ name: identity.name, birthDate: identity.birthDate });

    const progress: unknown[] = [];
    const done = await migratePersonData(org.db, { batch: 1, onBatch: (p) => progress.push(p) });
    expect(done).toEqual({ resealed: 2, unreadable: 1, remaining: { subjects: 1, evidence: 0 } });
    expect(progress.length).toBeGreaterThanOrEqual(2);

    const key = (await org.db.personKey.findUniqueOrThrow({ where: { personId: person.id } })).keySealed;
    const subjectAfter = await org.db.screeningSubject.findUniqueOrThrow({ where: { personId: person.id } });
    expect(subjectAfter.querySealed.startsWith(`p1.${person.id}.`)).toBe(true);
    expect(openStored(subjectAfter.querySealed, null)).toBeNull();
    expect(JSON.parse(openStored(subjectAfter.querySealed, key)!)).toEqual(identity);
    const hitAfter = await org.db.amlCaseHit.findUniqueOrThrow({ where: { id: hit.id } });
    expect((hitAfter.evidence as { subject: { sealed: string } }).subject.sealed.startsWith(`p1.${person.id}.`)).toBe(true);
    expect(evidenceView(hitAfter.evidence, key)?.subject).toMatchObject({
      name: identity.name,
      birthDate: identity.birthDate,
      country: "GH",
    });
    expect((await org.db.screeningSubject.findUniqueOrThrow({ where: { personId: other.id } })).querySealed).toBe("v1.retired.AAAA.BBBB");

    // A second pass finds nothing more to do.
    expect(await migratePersonData(org.db)).toEqual({ resealed: 0, unreadable: 1, remaining: { subjects: 1, evidence: 0 } });
  });

  it("never overwrites a newer value written between its read and its write", async () => {
    const org = await createTestOrg();
    const { person } = await legacyPerson(org);
    const stale = await org.db.screeningSubject.findUniqueOrThrow({ where: { personId: person.id } });
    // A new KYC approval re-records the identity while the migration holds the old value.
    const newer = { name: "Nana Serwaa Bonsu-Mensah", birthDate: "1983-03-17", country: "GH" };
    await rememberScreeningSubject(org.db, { orgId: org.orgId, personId: person.id, ...newer });
    expect(await resealSubject(org.db, { personId: person.id, orgId: org.orgId, querySealed: stale.querySealed })).toBe(false);
    const key = (await org.db.personKey.findUniqueOrThrow({ where: { personId: person.id } })).keySealed;
    const row = await org.db.screeningSubject.findUniqueOrThrow({ where: { personId: person.id } });
    expect(JSON.parse(openStored(row.querySealed, key)!)).toEqual(newer);
  });
});
