import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AccountLifecycle, KycStatus } from "@/generated/prisma/enums.ts";
import { issuerDid } from "@/server/crypto/issuer-keys";
import { type Db, getDb } from "@/server/db/client";
import { utcTimestamp } from "@/server/db/sql";
import { personDidOf } from "@/server/platform/account-ref";
import { accountRow } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { holdLock } from "@/server/testing/interleave";
import { retentionPlan, runRetention, runRetentionPolicies } from "./retention-run";

// Retention policies (docs/data-protection.md, "Retention"): an organization's people and accounts
// on both sides of each threshold; the dry run over HTTP lists exactly what the run then erases,
// blanks and deletes at the same instant, nothing inside a threshold is touched, a held person is
// reported held and left as they are, and a second run does nothing.

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** `days` days (and `hours` more) before `now`. */
const ago = (now: Date, days: number, hours = 0) => new Date(now.getTime() - days * DAY - hours * HOUR);

async function person(
  db: Db,
  orgId: string,
  p: { kycStatus: KycStatus; at: Date; reviewedAt?: Date; erasedAt?: Date },
): Promise<{ id: string; did: string }> {
  const row = await db.person.create({
    data: {
      orgId,
      kycStatus: p.kycStatus,
      reviewedAt: p.reviewedAt ?? null,
      erasedAt: p.erasedAt ?? null,
      country: "GH",
      providerApplicantId: `applicant-${randomUUID()}`,
      createdAt: p.at,
    },
  });
  return { id: row.id, did: personDidOf(issuerDid(), row.id) };
}

/** Sets a person's last change (after everything else about them was written). */
const touched = (db: Db, id: string, at: Date) =>
  db.$executeRaw`UPDATE people SET "updatedAt" = ${utcTimestamp(at)} WHERE id = ${id}::uuid`;

async function account(
  db: Db,
  orgId: string,
  a: { createdAt: Date; email?: string; phone?: string; fingerprint?: string; emailVerifiedAt?: Date; lifecycle?: AccountLifecycle },
) {
  return accountRow(db, orgId, {
    lifecycle: a.lifecycle ?? "provisional",
    email: a.email ?? null,
    emailVerifiedAt: a.email ? (a.emailVerifiedAt ?? a.createdAt) : null,
    phone: a.phone ?? null,
    phoneVerifiedAt: a.phone ? a.createdAt : null,
    deviceFingerprintHash: a.fingerprint ?? null,
    createdAt: a.createdAt,
  });
}

async function binding(db: Db, orgId: string, personId: string, b: { accountId: string; revokedAt?: Date }) {
  return db.accountBinding.create({
    data: {
      orgId,
      accountId: b.accountId,
      personId,
      bindingVcHash: randomBytes(32).toString("hex"),
      credential: {},
      issuerKeyId: "test",
      createdAt: ago(b.revokedAt ?? new Date(), 30),
      ...(b.revokedAt ? { status: "revoked" as const, revokedAt: b.revokedAt, revocationReason: "ended" } : {}),
    },
  });
}

async function kycSession(db: Db, orgId: string, personId: string, updatedAt: Date, accountId?: string) {
  const s = await db.kycSession.create({
    data: {
      orgId,
      personId,
      accountId: accountId ?? null,
      provider: "sandbox",
      level: "basic-kyc",
      verificationUrl: "https://kyc.example/v/1",
      expiresAt: updatedAt,
      createdAt: updatedAt,
    },
  });
  await db.$executeRaw`UPDATE kyc_sessions SET "updatedAt" = ${utcTimestamp(updatedAt)} WHERE id = ${s.id}::uuid`;
}

async function amlCase(
  db: Db,
  orgId: string,
  c: { subjectDid: string; personId?: string; accountId?: string; status: "open" | "cleared"; closedAt?: Date },
) {
  return db.amlCase.create({
    data: {
      orgId,
      subjectDid: c.subjectDid,
      personId: c.personId ?? null,
      accountId: c.accountId ?? null,
      status: c.status,
      priority: "medium",
      reason: "screening match",
      openedBy: "system:test",
      closedAt: c.closedAt ?? null,
    },
  });
}

async function codes(db: Db, orgId: string, createdAt: Date, n: number) {
  for (let i = 0; i < n; i++) {
    const address = `code-${randomUUID()}@mail.example`;
    const ch = await db.otpChallenge.create({
      data: { orgId, purpose: "verify", channel: "email", address, codeHash: "00", expiresAt: createdAt, createdAt },
    });
    await db.proofToken.create({
      data: {
        orgId,
        channel: "email",
        purpose: "verify",
        address,
        tokenHash: randomBytes(32).toString("hex"),
        challengeId: ch.id,
        expiresAt: createdAt,
        createdAt,
      },
    });
  }
}

const sorted = (xs: string[]) => [...xs].sort();

describe("retention policies", () => {
  it("erases, blanks and deletes exactly what the dry run listed, leaves everything inside a threshold and every held person alone, and does nothing the second time", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg();
    const other = await createTestOrg();
    const api = client(url, org.apiKey);
    const orgId = org.orgId;

    // Off until set: the preview of an organization without policies lists nothing.
    const off = await api.get("/v1/admin/retention/preview");
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ people: [], held: [], accounts: [], otpChallenges: 0, proofTokens: 0, more: false });

    const set = await api.put("/v1/admin/retention", { rejectedKycDays: 30, closedRelationshipDays: 365, contactOnlyDays: 14 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ amlRetentionDays: 1826, rejectedKycDays: 30, closedRelationshipDays: 365, contactOnlyDays: 14 });

    const now = new Date();

    // rejectedKycDays (30): rejected or unfinished, last activity past the threshold or not.
    const rejectedOld = await person(db, orgId, { kycStatus: "rejected", at: ago(now, 60), reviewedAt: ago(now, 30, 2) });
    await touched(db, rejectedOld.id, ago(now, 30, 2));
    const rejectedRecent = await person(db, orgId, { kycStatus: "rejected", at: ago(now, 60), reviewedAt: ago(now, 29, 22) });
    await touched(db, rejectedRecent.id, ago(now, 29, 22));
    const pendingOld = await person(db, orgId, { kycStatus: "pending", at: ago(now, 40) });
    const viaSession = await account(db, orgId, { createdAt: ago(now, 40), email: "pending.old@mail.example" });
    await kycSession(db, orgId, pendingOld.id, ago(now, 40), viaSession.id);
    await touched(db, pendingOld.id, ago(now, 40));
    // Its person row is old, but the provider reported progress on its session ten days ago.
    const pendingActive = await person(db, orgId, { kycStatus: "pending", at: ago(now, 40) });
    await kycSession(db, orgId, pendingActive.id, ago(now, 10));
    await touched(db, pendingActive.id, ago(now, 40));
    const notStarted = await person(db, orgId, { kycStatus: "not_started", at: ago(now, 40) });
    await touched(db, notStarted.id, ago(now, 40));
    const retry = await person(db, orgId, { kycStatus: "retry", at: ago(now, 45) });
    await touched(db, retry.id, ago(now, 40));
    const inReview = await person(db, orgId, { kycStatus: "in_review", at: ago(now, 100) });
    await touched(db, inReview.id, ago(now, 100));
    const alreadyErased = await person(db, orgId, { kycStatus: "rejected", at: ago(now, 100), erasedAt: ago(now, 50) });
    await touched(db, alreadyErased.id, ago(now, 100));
    // Rejected long ago but with an open case about them: held by the case and by the retention period it starts.
    const rejectedInCase = await person(db, orgId, { kycStatus: "rejected", at: ago(now, 60), reviewedAt: ago(now, 40) });
    await amlCase(db, orgId, { subjectDid: rejectedInCase.did, personId: rejectedInCase.id, status: "open" });
    await touched(db, rejectedInCase.id, ago(now, 40));

    // closedRelationshipDays (365), with the AML retention period (1826) still holding.
    const endedLongAgo = await person(db, orgId, { kycStatus: "approved", at: ago(now, 2200), reviewedAt: ago(now, 2100) });
    const endedAccount = await account(db, orgId, {
      createdAt: ago(now, 2150),
      email: "ended.long@mail.example",
      lifecycle: "provisional",
    });
    await binding(db, orgId, endedLongAgo.id, { accountId: endedAccount.id, revokedAt: ago(now, 1900) });
    // A case named by DID only, closed 1,826 days and two hours ago: the last end of the relationship.
    await amlCase(db, orgId, { subjectDid: endedLongAgo.did, status: "cleared", closedAt: ago(now, 1826, 2) });
    await touched(db, endedLongAgo.id, ago(now, 1826, 2));
    // Closed past the policy's threshold, but inside the retention period: held.
    const endedHeld = await person(db, orgId, { kycStatus: "approved", at: ago(now, 500), reviewedAt: ago(now, 400) });
    const heldAccount = await account(db, orgId, { createdAt: ago(now, 450), email: "ended.held@mail.example" });
    const heldRevokedAt = ago(now, 365, 2);
    await binding(db, orgId, endedHeld.id, { accountId: heldAccount.id, revokedAt: heldRevokedAt });
    await touched(db, endedHeld.id, heldRevokedAt);
    // Approved long ago, but a case about them closed 400 days ago: the retention period counts from its closing.
    const caseClosedAt = ago(now, 400);
    const endedByCase = await person(db, orgId, { kycStatus: "approved", at: ago(now, 2500), reviewedAt: ago(now, 2400) });
    await amlCase(db, orgId, { subjectDid: endedByCase.did, personId: endedByCase.id, status: "cleared", closedAt: caseClosedAt });
    await touched(db, endedByCase.id, caseClosedAt);
    // A case closed one day inside the policy's threshold: the relationship ended too recently.
    const endedRecently = await person(db, orgId, { kycStatus: "approved", at: ago(now, 3000), reviewedAt: ago(now, 3000) });
    await amlCase(db, orgId, { subjectDid: endedRecently.did, personId: endedRecently.id, status: "cleared", closedAt: ago(now, 364) });
    await touched(db, endedRecently.id, ago(now, 364));
    const stillBound = await person(db, orgId, { kycStatus: "approved", at: ago(now, 3000), reviewedAt: ago(now, 3000) });
    const boundAccount = await account(db, orgId, { createdAt: ago(now, 3000), email: "still.bound@mail.example", lifecycle: "bound" });
    await binding(db, orgId, stillBound.id, { accountId: boundAccount.id });
    await touched(db, stillBound.id, ago(now, 3000));
    const openCase = await person(db, orgId, { kycStatus: "approved", at: ago(now, 3000), reviewedAt: ago(now, 3000) });
    await amlCase(db, orgId, { subjectDid: openCase.did, personId: openCase.id, status: "open" });
    await touched(db, openCase.id, ago(now, 3000));

    // contactOnlyDays (14): accounts no person is linked to, and codes.
    const contactOld = await account(db, orgId, { createdAt: ago(now, 14, 2), email: "contact.old@mail.example", phone: "+233240000001" });
    const fingerprintOnly = await account(db, orgId, { createdAt: ago(now, 20), fingerprint: "ab".repeat(32) });
    const contactRecent = await account(db, orgId, { createdAt: ago(now, 13, 22), email: "contact.recent@mail.example" });
    // Created long ago, its email changed (and verified) five days ago.
    const contactChanged = await account(db, orgId, {
      createdAt: ago(now, 90),
      email: "contact.changed@mail.example",
      emailVerifiedAt: ago(now, 5),
    });
    const noContacts = await account(db, orgId, { createdAt: ago(now, 90) });
    const inBindSession = await account(db, orgId, { createdAt: ago(now, 90), email: "bind.session@mail.example" });
    await db.bindSession.create({
      data: {
        orgId,
        accountId: inBindSession.id,
        personId: stillBound.id,
        tokenHash: randomBytes(32).toString("hex"),
        createdBy: "system:test",
        expiresAt: ago(now, 89),
        createdAt: ago(now, 90),
      },
    });
    const inKyc = await account(db, orgId, { createdAt: ago(now, 90), email: "in.kyc@mail.example" });
    await kycSession(db, orgId, inReview.id, ago(now, 100), inKyc.id);
    await touched(db, inReview.id, ago(now, 100));
    const underCase = await account(db, orgId, { createdAt: ago(now, 90), email: "under.case@mail.example" });
    await amlCase(db, orgId, { subjectDid: underCase.did, accountId: underCase.id, status: "open" });
    const pendingCreate = await account(db, orgId, { createdAt: ago(now, 90), email: "pending@mail.example", lifecycle: "pending" });
    await codes(db, orgId, ago(now, 14, 2), 3);
    await codes(db, orgId, ago(now, 13, 22), 2);

    // Another organization, without policies: nothing of it is touched by anyone's run.
    const otherRejected = await person(db, other.orgId, { kycStatus: "rejected", at: ago(now, 400), reviewedAt: ago(now, 400) });
    await touched(db, otherRejected.id, ago(now, 400));
    const otherAccount = await account(db, other.orgId, { createdAt: ago(now, 400), email: "other.org@mail.example" });
    await codes(db, other.orgId, ago(now, 400), 1);

    // The dry run over HTTP.
    const preview = await api.get("/v1/admin/retention/preview");
    expect(preview.status, preview.text).toBe(200);
    const plan = preview.body;
    const toErase = [rejectedOld, pendingOld, notStarted, retry, endedLongAgo];
    expect(sorted(plan.people.map((p: { personDid: string }) => p.personDid))).toEqual(sorted(toErase.map((p) => p.did)));
    expect(plan.people.find((p: { personDid: string }) => p.personDid === endedLongAgo.did).rule).toBe("closed_relationship");
    expect(plan.people.find((p: { personDid: string }) => p.personDid === rejectedOld.did).rule).toBe("rejected_kyc");
    // Longest past its threshold first.
    expect(plan.people[0].personDid).toBe(endedLongAgo.did);
    expect(sorted(plan.held.map((p: { personDid: string }) => p.personDid))).toEqual(
      sorted([endedHeld.did, rejectedInCase.did, endedByCase.did]),
    );
    expect(plan.held.find((p: { personDid: string }) => p.personDid === endedByCase.did)).toMatchObject({
      heldBy: ["aml_retention"],
      erasableFrom: new Date(caseClosedAt.getTime() + 1826 * DAY).toISOString(),
    });
    expect(plan.held.find((p: { personDid: string }) => p.personDid === endedHeld.did)).toEqual({
      personDid: endedHeld.did,
      rule: "closed_relationship",
      heldBy: ["aml_retention"],
      erasableFrom: new Date(heldRevokedAt.getTime() + 1826 * DAY).toISOString(),
    });
    expect(plan.held.find((p: { personDid: string }) => p.personDid === rejectedInCase.did)).toMatchObject({
      rule: "rejected_kyc",
      heldBy: ["open_case", "aml_retention"],
    });
    expect(sorted(plan.accounts.map((a: { accountDid: string }) => a.accountDid))).toEqual(sorted([contactOld.did, fingerprintOnly.did]));
    expect(plan).toMatchObject({ otpChallenges: 3, proofTokens: 3, more: false });

    // The service's plan at the injected instant is the same, and cut at a limit it says so.
    const { at: _at, ...samePlan } = plan;
    const atNow = await retentionPlan(db, orgId, now);
    expect(atNow.at).toBe(now.toISOString());
    expect({ ...atNow, at: undefined }).toEqual({ ...samePlan, at: undefined });
    const cut = await retentionPlan(db, orgId, now, 2);
    expect(cut.more).toBe(true);
    expect(cut.people).toEqual(plan.people.slice(0, 2));

    // The run at the same instant.
    const ran = await runRetention(db, orgId, now);
    expect(ran.people).toEqual(plan.people);
    expect(ran.held).toEqual(plan.held);
    expect(ran.accounts).toEqual(plan.accounts);
    expect(ran).toMatchObject({ otpChallenges: 3, proofTokens: 3, more: false, skipped: 0 });

    // Erased: exactly the listed people, through the erasure itself.
    const rows = await db.person.findMany({
      where: { orgId },
      select: { id: true, erasedAt: true, country: true, providerApplicantId: true },
    });
    const erasedIds = rows.filter((r) => r.erasedAt && r.id !== alreadyErased.id).map((r) => r.id);
    expect(sorted(erasedIds)).toEqual(sorted(toErase.map((p) => p.id)));
    for (const r of rows.filter((r) => erasedIds.includes(r.id))) expect(r).toMatchObject({ country: null, providerApplicantId: null });
    for (const p of [
      rejectedRecent,
      pendingActive,
      inReview,
      rejectedInCase,
      endedHeld,
      endedByCase,
      endedRecently,
      stillBound,
      openCase,
    ]) {
      expect(rows.find((r) => r.id === p.id)).toMatchObject({ erasedAt: null, country: "GH" });
    }
    const tombstones = await db.auditEntry.findMany({ where: { orgId, action: "person.erased" } });
    expect(sorted(tombstones.map((t) => t.subject!))).toEqual(sorted(toErase.map((p) => p.did)));
    expect(new Set(tombstones.map((t) => t.actor))).toEqual(new Set(["system:retention"]));
    // The erasure of the pending person blanked the account their verification named.
    expect(await db.account.findUnique({ where: { id: viaSession.id } })).toMatchObject({ email: null });

    // Blanked: the contacts of the listed accounts only; the accounts stay.
    const accounts = await db.account.findMany({ where: { orgId } });
    const byId = new Map(accounts.map((a) => [a.id, a]));
    for (const a of [contactOld, fingerprintOnly])
      expect(byId.get(a.id)).toMatchObject({ email: null, phone: null, deviceFingerprintHash: null, did: a.did });
    for (const a of [contactRecent, contactChanged, inBindSession, inKyc, underCase, pendingCreate, boundAccount, heldAccount])
      expect(byId.get(a.id)!.email).toBe(a.email);
    expect(byId.get(noContacts.id)).toBeDefined();
    // Codes and tokens: the old ones of this organization only.
    expect(await db.otpChallenge.count({ where: { orgId } })).toBe(2);
    expect(await db.proofToken.count({ where: { orgId } })).toBe(2);
    expect(await db.otpChallenge.count({ where: { orgId: other.orgId } })).toBe(1);
    expect(await db.proofToken.count({ where: { orgId: other.orgId } })).toBe(1);

    // One audit entry for the run, with counts and nothing personal.
    const runs = await db.auditEntry.findMany({ where: { orgId, action: "org.retention_run" } });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ actor: "system:retention", subjectType: "organization", subject: orgId });
    expect(runs[0]!.data).toEqual({
      at: now.toISOString(),
      policies: { rejectedKycDays: 30, closedRelationshipDays: 365, contactOnlyDays: 14 },
      peopleErased: 5,
      peopleHeld: 3,
      peopleSkipped: 0,
      accountsCleared: 2,
      otpChallengesDeleted: 3,
      proofTokensDeleted: 3,
      more: false,
    });
    expect(JSON.stringify(runs[0]!.data)).not.toMatch(/did:|@|\+233/);

    // The second run (the worker's job, over every organization with a policy) does nothing.
    const again = await runRetentionPolicies(db, now);
    expect(again).toMatchObject({ organizations: 1, peopleErased: 0, peopleHeld: 3, accountsCleared: 0, failed: 0 });
    const second = await runRetention(db, orgId, now);
    expect(second).toMatchObject({ people: [], accounts: [], otpChallenges: 0, proofTokens: 0, skipped: 0 });
    expect(second.held).toEqual(plan.held);
    expect(await db.auditEntry.count({ where: { orgId, action: "org.retention_run" } })).toBe(1);
    expect((await api.get("/v1/admin/retention/preview")).body).toMatchObject({ people: [], accounts: [], otpChallenges: 0 });

    // The organization without policies kept everything.
    expect(await db.person.findUnique({ where: { id: otherRejected.id } })).toMatchObject({ erasedAt: null, country: "GH" });
    expect(await db.account.findUnique({ where: { id: otherAccount.id } })).toMatchObject({ email: "other.org@mail.example" });
  });

  it("skips a person who changed after the plan was made, and erases the rest", async () => {
    const db = await getDb();
    const org = await createTestOrg();
    const orgId = org.orgId;
    await db.organization.update({ where: { id: orgId }, data: { rejectedKycDays: 30 } });
    const now = new Date();
    const first = await person(db, orgId, { kycStatus: "rejected", at: ago(now, 90), reviewedAt: ago(now, 80) });
    await touched(db, first.id, ago(now, 80));
    const second = await person(db, orgId, { kycStatus: "retry", at: ago(now, 90) });
    await touched(db, second.id, ago(now, 60));
    const third = await person(db, orgId, { kycStatus: "not_started", at: ago(now, 90) });
    await touched(db, third.id, ago(now, 50));
    expect((await retentionPlan(db, orgId, now)).people.map((p) => p.personDid)).toEqual([first.did, second.did, third.did]);

    // The first erasure waits for the audit chain's head, which this test holds; meanwhile the
    // second person starts a verification again and the third is busy elsewhere (row locked).
    const head = await holdLock(`SELECT "orgId" FROM audit_heads WHERE "orgId" = $1::uuid FOR UPDATE`, [orgId]);
    const run = runRetention(db, orgId, now);
    await head.waitForWaiters(1);
    await kycSession(db, orgId, second.id, new Date());
    const busy = await holdLock(`SELECT id FROM people WHERE id = $1::uuid FOR UPDATE`, [third.id]);
    await head.release();
    const ran = await run;
    await busy.release();

    expect(ran.people.map((p) => p.personDid)).toEqual([first.did]);
    expect(ran.skipped).toBe(2);
    const after = await db.person.findMany({ where: { orgId }, select: { id: true, erasedAt: true } });
    expect(after.filter((p) => p.erasedAt).map((p) => p.id)).toEqual([first.id]);
    // The third was only busy: the next run takes it; the second is active again and stays.
    expect((await runRetention(db, orgId, now)).people.map((p) => p.personDid)).toEqual([third.did]);
  });

  it("takes every setting alone or together, refuses a bad one naming it, and still takes an old client's amlRetentionDays", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);

    expect((await api.get("/v1/admin/retention")).body).toEqual({
      amlRetentionDays: 1826,
      rejectedKycDays: null,
      closedRelationshipDays: null,
      contactOnlyDays: null,
    });
    // An old client's body, as before: only the AML period, the policies stay off.
    const old = await api.put("/v1/admin/retention", { amlRetentionDays: 400 });
    expect(old.status, old.text).toBe(200);
    expect(old.body).toEqual({ amlRetentionDays: 400, rejectedKycDays: null, closedRelationshipDays: null, contactOnlyDays: null });

    for (const [body, field] of [
      [{ rejectedKycDays: -1 }, "rejectedKycDays"],
      [{ closedRelationshipDays: 1.5 }, "closedRelationshipDays"],
      [{ contactOnlyDays: 0 }, "contactOnlyDays"],
      [{ contactOnlyDays: "30" }, "contactOnlyDays"],
      [{ amlRetentionDays: -5 }, "amlRetentionDays"],
      [{ amlRetentionDays: 2.5, rejectedKycDays: 30 }, "amlRetentionDays"],
      [{ amlRetentionDays: null }, "amlRetentionDays"],
    ] as const) {
      const res = await api.put("/v1/admin/retention", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual([`body.${field}`]);
    }
    expect((await api.put("/v1/admin/retention", {})).status).toBe(400);
    expect((await api.put("/v1/admin/retention", { rejectedKycDay: 30 })).status).toBe(400);

    const both = await api.put("/v1/admin/retention", { rejectedKycDays: 30, contactOnlyDays: 7 });
    expect(both.body).toEqual({ amlRetentionDays: 400, rejectedKycDays: 30, closedRelationshipDays: null, contactOnlyDays: 7 });
    const offAgain = await api.put("/v1/admin/retention", { contactOnlyDays: null, closedRelationshipDays: 730 });
    expect(offAgain.body).toEqual({ amlRetentionDays: 400, rejectedKycDays: 30, closedRelationshipDays: 730, contactOnlyDays: null });
    expect((await api.get("/v1/admin/retention")).body).toEqual(offAgain.body);

    const audit = await db.auditEntry.findMany({
      where: { orgId: org.orgId, action: { in: ["org.retention_changed", "org.retention_policy_changed"] } },
      orderBy: { seq: "asc" },
    });
    expect(audit.map((a) => [a.action, a.data])).toEqual([
      ["org.retention_changed", { before: 1826, after: 400 }],
      [
        "org.retention_policy_changed",
        { before: { rejectedKycDays: null, contactOnlyDays: null }, after: { rejectedKycDays: 30, contactOnlyDays: 7 } },
      ],
      [
        "org.retention_policy_changed",
        { before: { closedRelationshipDays: null, contactOnlyDays: 7 }, after: { closedRelationshipDays: 730, contactOnlyDays: null } },
      ],
    ]);
  });
});
