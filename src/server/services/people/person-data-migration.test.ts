import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { accountKey, openContacts, sealContact } from "../../crypto/account-box";
import { openStored } from "../../crypto/person-box";
import { providerReferenceHash } from "../../crypto/provider-reference";
import { open, seal } from "../../crypto/secret-box";
import { contactHash } from "../../platform/contact-address";
import { person as approvedPerson, serviceCtx } from "../../testing/aml";
import { accountRow } from "../../testing/factories";
import { createTestOrg } from "../../testing/harness";
import { getTimeline } from "../aml";
import { evidenceView } from "../aml/evidence";
import { rememberScreeningSubject } from "../screening";
import { exportPerson } from "./access-export";
import { migratePersonData, resealSubject } from "./person-data-migration";

// Rows written before person data keys existed, sealed with BI_ENCRYPTION_KEY alone, are
// re-sealed under each person's key by a pass that is safe while serving (docs/data-protection.md,
// "Crypto-shredding"): readers open both forms, a newer write is never overwritten, and a pass can
// stop and continue anywhere.

const identity = { name: "Nana Serwaa Bonsu", birthDate: "1983-03-17", country: "GH" };
const NONE_LEFT = {
  subjects: 0,
  evidence: 0,
  cases: 0,
  comments: 0,
  events: 0,
  sessions: 0,
  people: 0,
  accounts: 0,
  codes: 0,
  proofs: 0,
  risk: 0,
  devices: 0,
};

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
    expect(done).toEqual({ resealed: 2, unreadable: 1, remaining: { ...NONE_LEFT, subjects: 1 } });
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
    expect(await migratePersonData(org.db)).toEqual({ resealed: 0, unreadable: 1, remaining: { ...NONE_LEFT, subjects: 1 } });
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

  it("seals what officers wrote in clear on a person's cases and their KYC sessions' addresses, references and links, read the same before and after", async () => {
    const org = await createTestOrg();
    const db = org.db;
    const p = await approvedPerson(db, org.orgId);
    const texts = {
      byHand: "Opened by hand to clear: Yaa Asantewaa-Boakye is a namesake",
      propose: "Yaa Asantewaa-Boakye is a namesake",
      confirm: "Yaa Asantewaa-Boakye matches after all",
      comment: "Yaa Asantewaa-Boakye called us back",
    };
    // Rows as the service wrote them before it sealed them: in clear, straight into the tables.
    const caseId = randomUUID();
    await db.$executeRaw`
      INSERT INTO aml_cases (id, "orgId", "subjectDid", "personId", status, priority, reason, "openedBy",
        "proposedBy", "proposedAt", "proposeReason", "confirmedBy", "confirmedAt", "confirmReason", "closedAt", "updatedAt")
      VALUES (${caseId}::uuid, ${org.orgId}::uuid, ${p.did}, ${p.id}::uuid, 'confirmed', 'low', ${texts.byHand}, 'api_key:a',
        'api_key:a', now(), ${texts.propose}, 'api_key:b', now(), ${texts.confirm}, now(), now())`;
    const commentId = randomUUID();
    await db.$executeRaw`
      INSERT INTO aml_case_comments (id, "orgId", "caseId", author, body)
      VALUES (${commentId}::uuid, ${org.orgId}::uuid, ${caseId}::uuid, 'api_key:a', ${texts.comment})`;
    const events = [
      { kind: "opened", data: { priority: "low", source: "clear" } },
      { kind: "comment", data: { commentId, length: texts.comment.length } },
      { kind: "proposed", data: { reason: texts.propose, proposedAssignee: null } },
      { kind: "confirmed", data: { reason: texts.confirm, previousStatus: "pending_approval" } },
      // A reason code the service wrote stays as it is.
      { kind: "credentials_changed", data: { change: "suspended", reason: "key_changed", bindings: [] } },
    ];
    for (const e of events)
      await db.$executeRaw`
        INSERT INTO aml_case_events (id, "orgId", "caseId", kind, actor, data)
        VALUES (${randomUUID()}::uuid, ${org.orgId}::uuid, ${caseId}::uuid, ${e.kind}, 'api_key:a', ${JSON.stringify(e.data)}::jsonb)`;
    await db.$executeRaw`
      INSERT INTO kyc_sessions (id, "orgId", "personId", provider, level, "providerSessionId", "verificationUrl", status, "clientIp",
        "expiresAt", "updatedAt")
      VALUES (${randomUUID()}::uuid, ${org.orgId}::uuid, ${p.id}::uuid, 'sandbox', 'basic', 'sbx_legacyref', 'https://kyc.example/x',
        'approved', '203.0.113.7', now(), now() - interval '30 days')`;
    // A case naming no person keeps its texts in clear: there is no key to seal them under.
    const accountCase = randomUUID();
    await db.$executeRaw`
      INSERT INTO aml_cases (id, "orgId", "subjectDid", status, priority, reason, "openedBy", "confirmReason", "closedAt", "updatedAt")
      VALUES (${accountCase}::uuid, ${org.orgId}::uuid, ${`did:antelope:sandbox:${randomUUID()}`}, 'confirmed', 'low',
        'Opened by hand to clear: the account alone', 'api_key:a', 'Known mixer address', now(), now())`;

    const ctx = await serviceCtx(db, org.orgId, { type: "system", label: "test" });
    const readable = async () => {
      const t = await getTimeline(ctx, caseId);
      const exported = await exportPerson(ctx, p.did);
      return {
        case: { reason: t.case.reason, proposeReason: t.case.proposeReason, confirmReason: t.case.confirmReason },
        events: t.events.map((e) => ({ kind: e.kind, data: e.data, text: e.text })),
        clientIp: exported.data.verifications.map((v) => v.clientIp),
        providerReference: exported.data.verifications.map((v) => v.providerReference),
      };
    };
    const before = await readable();
    expect(before.case).toEqual({ reason: texts.byHand, proposeReason: texts.propose, confirmReason: texts.confirm });
    expect(before.events.find((e) => e.kind === "comment")!.text).toBe(texts.comment);
    expect(before.clientIp).toEqual(["203.0.113.7"]);
    expect(before.providerReference).toEqual(["sbx_legacyref"]);

    const progress: { remaining: Record<string, number> }[] = [];
    const done = await migratePersonData(db, { batch: 1, onBatch: (x) => progress.push(x) });
    // The case row, the comment, two events and the session (and what the tests above left legacy).
    expect(done).toMatchObject({
      remaining: { cases: 0, comments: 0, events: 0, sessions: 0, people: 0, accounts: 0, codes: 0, proofs: 0 },
    });
    expect(done.resealed).toBeGreaterThanOrEqual(5);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]!.remaining.events).toBe(1);

    const sealed = new RegExp(`^p1\\.${p.id}\\.`);
    const [row] = await db.$queryRaw<{ reason: string; proposeReason: string; confirmReason: string }[]>`
      SELECT reason, "proposeReason", "confirmReason" FROM aml_cases WHERE id = ${caseId}::uuid`;
    expect(row).toEqual({
      reason: expect.stringMatching(sealed),
      proposeReason: expect.stringMatching(sealed),
      confirmReason: expect.stringMatching(sealed),
    });
    const [comment] = await db.$queryRaw<{ body: string }[]>`SELECT body FROM aml_case_comments WHERE id = ${commentId}::uuid`;
    expect(comment!.body).toMatch(sealed);
    const stored = await db.$queryRaw<{ kind: string; data: Record<string, unknown> }[]>`
      SELECT kind, data FROM aml_case_events WHERE "caseId" = ${caseId}::uuid ORDER BY seq`;
    expect(stored.find((e) => e.kind === "proposed")!.data).toEqual({ reason: expect.stringMatching(sealed), proposedAssignee: null });
    expect(stored.find((e) => e.kind === "confirmed")!.data.reason).toMatch(sealed);
    expect(stored.find((e) => e.kind === "credentials_changed")!.data.reason).toBe("key_changed");
    const [session] = await db.$queryRaw<
      { clientIp: string; providerSessionId: string; providerSessionIdHash: string; verificationUrl: string; updatedAt: Date }[]
    >`
      SELECT "clientIp", "providerSessionId", "providerSessionIdHash", "verificationUrl", "updatedAt" FROM kyc_sessions
      WHERE "personId" = ${p.id}::uuid`;
    expect(session!.clientIp).toMatch(sealed);
    // The provider reference and the hosted link too, the reference with its keyed hash (how callbacks find it).
    expect(session!.providerSessionId).toMatch(sealed);
    expect(session!.verificationUrl).toMatch(sealed);
    expect(session!.providerSessionIdHash).toBe(providerReferenceHash("sandbox", "sbx_legacyref"));
    // The session's last change, which the retention run reads as activity, is left as it was.
    expect(session!.updatedAt.getTime()).toBeLessThan(Date.now() - 29 * 86_400_000);
    const [untouched] = await db.$queryRaw<{ reason: string; confirmReason: string }[]>`
      SELECT reason, "confirmReason" FROM aml_cases WHERE id = ${accountCase}::uuid`;
    expect(untouched).toEqual({ reason: "Opened by hand to clear: the account alone", confirmReason: "Known mixer address" });

    // The same texts read back, and a second pass finds nothing more to do.
    expect(await readable()).toEqual(before);
    expect(await migratePersonData(db)).toMatchObject({
      resealed: 0,
      remaining: { cases: 0, comments: 0, events: 0, sessions: 0, people: 0, accounts: 0, codes: 0, proofs: 0 },
    });
  });

  it("seals accounts' contacts and an organization's code addresses written in clear, with their keyed hashes", async () => {
    const org = await createTestOrg();
    const db = org.db;
    const account = (contacts: { email?: string; phone?: string }) =>
      accountRow(db, org.orgId, {
        ...(contacts.email ? { email: contacts.email, emailVerifiedAt: new Date() } : {}),
        ...(contacts.phone ? { phone: contacts.phone, phoneVerifiedAt: new Date() } : {}),
      });
    // As the service wrote them before it sealed contacts: in clear, with no hash and no key.
    const legacy = await account({ email: "efua.legacy@mail.example", phone: "+233241112233" });
    await db.$executeRaw`UPDATE accounts SET "updatedAt" = now() - interval '30 days' WHERE id = ${legacy.id}::uuid`;
    // Half way: an email sealed since (under a key made then), a phone still in clear.
    const half = await account({ phone: "+233241112244" });
    const key = await accountKey(db, half.id);
    await db.account.update({
      where: { id: half.id },
      data: {
        email: sealContact(key, half.id, "kofi.half@mail.example"),
        emailHash: contactHash(org.orgId, "email", "kofi.half@mail.example"),
        emailVerifiedAt: new Date(),
      },
    });
    const halfKey = (await db.account.findUniqueOrThrow({ where: { id: half.id } })).dataKeySealed;
    const code = await db.otpChallenge.create({
      data: {
        orgId: org.orgId,
        purpose: "verify",
        channel: "email",
        address: "esi.code@mail.example",
        codeHash: "00",
        expiresAt: new Date(),
      },
    });
    const proof = await db.proofToken.create({
      data: {
        orgId: org.orgId,
        channel: "phone",
        purpose: "verify",
        address: "+233241112255",
        tokenHash: randomUUID(),
        challengeId: code.id,
        expiresAt: new Date(),
      },
    });
    // A public signup's work address stays in clear (its console member and checkout keep it so).
    const signup = await db.otpChallenge.create({
      data: {
        orgId: null,
        purpose: "billing_signup",
        channel: "email",
        address: "owner@acme.example",
        codeHash: "00",
        expiresAt: new Date(),
      },
    });

    const done = await migratePersonData(db, { batch: 1 });
    expect(done.remaining).toMatchObject({ accounts: 0, codes: 0, proofs: 0 });

    const [row] = await db.$queryRaw<
      { email: string; emailHash: string; phone: string; phoneHash: string; dataKeySealed: string; updatedAt: Date }[]
    >`
      SELECT email, "emailHash", phone, "phoneHash", "dataKeySealed", "updatedAt" FROM accounts WHERE id = ${legacy.id}::uuid`;
    expect(row).toMatchObject({
      email: expect.stringMatching(new RegExp(`^a1\\.${legacy.id}\\.`)),
      emailHash: contactHash(org.orgId, "email", "efua.legacy@mail.example"),
      phone: expect.stringMatching(new RegExp(`^a1\\.${legacy.id}\\.`)),
      phoneHash: contactHash(org.orgId, "phone", "+233241112233"),
      dataKeySealed: expect.stringMatching(/^v1\./),
    });
    expect(JSON.stringify(row)).not.toContain("efua");
    expect(openContacts(row!)).toEqual({ email: "efua.legacy@mail.example", phone: "+233241112233" });
    expect(row!.updatedAt.getTime()).toBeLessThan(Date.now() - 29 * 86_400_000);
    // The account that had a key keeps it: its phone joins its email under the same key.
    const halfAfter = await db.account.findUniqueOrThrow({ where: { id: half.id } });
    expect(halfAfter.dataKeySealed).toBe(halfKey);
    expect(halfAfter.phoneHash).toBe(contactHash(org.orgId, "phone", "+233241112244"));
    expect(openContacts(halfAfter)).toEqual({ email: "kofi.half@mail.example", phone: "+233241112244" });

    const codeAfter = await db.otpChallenge.findUniqueOrThrow({ where: { id: code.id } });
    expect(codeAfter.address).toMatch(/^v1\./);
    expect(open(codeAfter.address)).toBe("esi.code@mail.example");
    expect(codeAfter.addressHash).toBe(contactHash(org.orgId, "email", "esi.code@mail.example"));
    const proofAfter = await db.proofToken.findUniqueOrThrow({ where: { id: proof.id } });
    expect(open(proofAfter.address)).toBe("+233241112255");
    expect(proofAfter.addressHash).toBe(contactHash(org.orgId, "phone", "+233241112255"));
    expect((await db.otpChallenge.findUniqueOrThrow({ where: { id: signup.id } })).address).toBe("owner@acme.example");

    // A second pass finds nothing more of these to do.
    expect((await migratePersonData(db)).remaining).toMatchObject({ accounts: 0, codes: 0, proofs: 0 });
    expect((await db.account.findUniqueOrThrow({ where: { id: legacy.id } })).email).toBe(row!.email);
  });
});
