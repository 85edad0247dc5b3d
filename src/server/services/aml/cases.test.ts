import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openForPerson } from "../../crypto/person-box";
import { didOf, extraKey, flaggedPerson, person } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { verifyChain } from "../audit/verify";

async function setup(policy: { requireSecondApprovalToClearAml?: boolean } = {}) {
  const { url, db } = await testServer();
  const org = await createTestOrg();
  if (policy.requireSecondApprovalToClearAml) await db.organization.update({ where: { id: org.orgId }, data: policy });
  const keyA = await db.apiKey.findFirstOrThrow({ where: { orgId: org.orgId } });
  return { url, db, org, api: client(url, org.apiKey), actorA: `api_key:${keyA.id}` };
}

const flagsOf = async (db: any, id: string) =>
  db.person.findUniqueOrThrow({ where: { id }, select: { pepFlag: true, sanctionsFlag: true, riskScore: true } });

describe("POST /v1/aml/clear without four-eyes", () => {
  it("(none) → open → cleared: opens a case by hand, lifts both flags and resets riskScore in one step, audited with reason and actor", async () => {
    const { db, org, api, actorA } = await setup();
    const p = await person(db, org.orgId, { pepFlag: true, sanctionsFlag: true, riskScore: 91 });
    const res = await api.post("/v1/aml/clear", { subjectDid: p.did, reason: "False positive: different birth date" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ cleared: true, pendingApproval: false, caseId: expect.any(String), subjectDid: p.did });
    expect(await flagsOf(db, p.id)).toEqual({ pepFlag: false, sanctionsFlag: false, riskScore: 0 });
    const c = await db.amlCase.findUniqueOrThrow({ where: { id: res.body.caseId } });
    expect(c).toMatchObject({
      orgId: org.orgId,
      personId: p.id,
      status: "cleared",
      priority: "critical",
      openedBy: actorA,
      proposedBy: actorA,
      approvedBy: null,
    });
    expect(c.closedAt).toBeInstanceOf(Date);
    const audit = await db.auditEntry.findMany({ where: { orgId: org.orgId, action: { startsWith: "aml." } }, orderBy: { seq: "asc" } });
    expect(audit.map((a) => a.action)).toEqual(["aml.case_opened", "aml.cleared"]);
    expect(audit[1]).toMatchObject({ actor: actorA, subject: p.did, subjectType: "person" });
    expect(audit[1]!.data).toMatchObject({
      caseId: c.id,
      reason: expect.stringMatching(/^p1\./),
      fourEyes: false,
      flagsBefore: { pepFlag: true, sanctionsFlag: true, riskScore: 91 },
    });
    // The reason is sealed under the person's data key (docs/data-protection.md), and opens with it.
    expect(await openForPerson(db, (audit[1]!.data as { reason: string }).reason)).toBe("False positive: different birth date");
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("open → cleared: clears the subject's existing case, which leaves the queue", async () => {
    const { db, org, api } = await setup();
    const { person: p, caseId } = await flaggedPerson(db, org.orgId);
    expect((await api.get("/v1/aml/cases")).body.cases.map((c: any) => c.caseId)).toEqual([caseId]);
    const res = await api.post("/v1/aml/clear", { subjectDid: p.did, reason: "Namesake, not the listed PEP" });
    expect(res.body).toEqual({ cleared: true, pendingApproval: false, caseId, subjectDid: p.did });
    expect(await flagsOf(db, p.id)).toEqual({ pepFlag: false, sanctionsFlag: false, riskScore: 0 });
    expect(await db.amlCase.count({ where: { orgId: org.orgId } })).toBe(1);
    expect((await api.get("/v1/aml/cases")).body.cases).toEqual([]);
  });

  it("accepts the person DID with an upper-case id and answers, stores and audits the canonical DID", async () => {
    const { db, org, api } = await setup();
    const p = await person(db, org.orgId, { pepFlag: true });
    const upper = p.did.replace(p.id, p.id.toUpperCase());
    const res = await api.post("/v1/aml/clear", { subjectDid: upper, reason: "namesake" });
    expect(res.body).toMatchObject({ cleared: true, subjectDid: p.did });
    expect((await db.amlCase.findUniqueOrThrow({ where: { id: res.body.caseId } })).subjectDid).toBe(p.did);
    expect((await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "aml.cleared" } })).subject).toBe(p.did);
  });

  it("answers 404 for an unknown person, a DID that is not a person DID, and another organization's person", async () => {
    const { db, api } = await setup();
    const other = await createTestOrg();
    const theirs = await person(db, other.orgId, { pepFlag: true });
    for (const subjectDid of [didOf(randomUUID()), "did:antelope:sandbox:someone", theirs.did]) {
      const res = await api.post("/v1/aml/clear", { subjectDid, reason: "no such person here" });
      expect(res.status, subjectDid).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect(await flagsOf(db, theirs.id)).toMatchObject({ pepFlag: true });
    expect(await db.amlCase.count({ where: { personId: theirs.id } })).toBe(0);
  });

  it("validates reason (3 to 500 characters) and rejects unknown fields", async () => {
    const { db, org, api } = await setup();
    const p = await person(db, org.orgId, { pepFlag: true });
    for (const body of [
      { subjectDid: p.did, reason: "no" },
      { subjectDid: p.did, reason: "x".repeat(501) },
      { subjectDid: p.did },
      { subjectDid: p.did, reason: "fine reason", extra: 1 },
    ]) {
      const res = await api.post("/v1/aml/clear", body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect(await db.amlCase.count({ where: { orgId: org.orgId } })).toBe(0);
  });
});

describe("four-eyes clearing (requireSecondApprovalToClearAml)", () => {
  it("open → pending_approval with flags up; the proposer's own approval is 403; another key's approval lifts the flags and closes the case", async () => {
    const { db, org, api, url, actorA } = await setup({ requireSecondApprovalToClearAml: true });
    const { person: p, caseId } = await flaggedPerson(db, org.orgId, { sanctions: true, pep: false, severity: "critical", score: 95 });
    const proposed = await api.post("/v1/aml/clear", { subjectDid: p.did, reason: "Different person: passport number differs" });
    expect(proposed.status).toBe(200);
    expect(proposed.body).toEqual({ cleared: false, pendingApproval: true, caseId, subjectDid: p.did });
    expect(await flagsOf(db, p.id)).toEqual({ pepFlag: false, sanctionsFlag: true, riskScore: 95 });
    expect(await db.amlCase.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      status: "pending_approval",
      proposedBy: actorA,
      closedAt: null,
    });

    // Proposing again changes nothing: the proposal stands until another identity decides.
    const again = await api.post("/v1/aml/clear", { subjectDid: p.did, reason: "again" });
    expect(again.body).toEqual(proposed.body);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.clear_proposed" } })).toBe(1);

    const self = await api.post(`/v1/aml/cases/${caseId}/approve-clear`, { notes: "approving my own" });
    expect(self.status).toBe(403);
    expect(self.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "same_approver" } });
    expect(await flagsOf(db, p.id)).toMatchObject({ sanctionsFlag: true });

    const b = await extraKey(db, org.orgId);
    const approved = await client(url, b.raw).post(`/v1/aml/cases/${caseId}/approve-clear`, { notes: "Checked the passport scan" });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({
      caseId,
      status: "cleared",
      proposedBy: actorA,
      approvedBy: b.actor,
      approveNotes: "Checked the passport scan",
    });
    expect(approved.body.hits).toHaveLength(1);
    expect(await flagsOf(db, p.id)).toEqual({ pepFlag: false, sanctionsFlag: false, riskScore: 0 });
    const cleared = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "aml.cleared" } });
    expect(cleared.actor).toBe(b.actor);
    expect(cleared.data).toMatchObject({
      caseId,
      reason: expect.stringMatching(/^p1\./),
      notes: expect.stringMatching(/^p1\./),
      proposedBy: actorA,
      approvedBy: b.actor,
      fourEyes: true,
    });
    const sealed = cleared.data as { reason: string; notes: string };
    expect(await openForPerson(db, sealed.reason)).toBe("Different person: passport number differs");
    expect(await openForPerson(db, sealed.notes)).toBe("Checked the passport scan");

    const twice = await client(url, b.raw).post(`/v1/aml/cases/${caseId}/approve-clear`, {});
    expect(twice.status).toBe(409);
    expect(twice.body.error.details.reason).toBe("not_awaiting_approval");
  });

  it("(none) → open → pending_approval for a subject without a case; approve-clear works with an empty body", async () => {
    const { db, org, api, url } = await setup({ requireSecondApprovalToClearAml: true });
    const p = await person(db, org.orgId, { pepFlag: true, riskScore: 40 });
    const res = await api.post("/v1/aml/clear", { subjectDid: p.did, reason: "Opened by hand" });
    expect(res.body).toMatchObject({ cleared: false, pendingApproval: true, subjectDid: p.did });
    expect(await db.amlCase.findUniqueOrThrow({ where: { id: res.body.caseId } })).toMatchObject({
      status: "pending_approval",
      priority: "high",
    });
    const b = await extraKey(db, org.orgId);
    const approved = await call(url, b.raw, `/v1/aml/cases/${res.body.caseId}/approve-clear`);
    expect(approved.status, approved.text).toBe(200);
    expect(await flagsOf(db, p.id)).toEqual({ pepFlag: false, sanctionsFlag: false, riskScore: 0 });
  });

  it("approve-clear on a case that is not awaiting approval is 409 not_awaiting_approval (open, cleared, confirmed)", async () => {
    const { db, org, api } = await setup();
    const open = await flaggedPerson(db, org.orgId);
    const r1 = await api.post(`/v1/aml/cases/${open.caseId}/approve-clear`, {});
    expect([r1.status, r1.body.error.details.reason]).toEqual([409, "not_awaiting_approval"]);
    expect(await flagsOf(db, open.person.id)).toMatchObject({ pepFlag: true });

    const confirmed = await flaggedPerson(db, org.orgId);
    expect((await api.post(`/v1/aml/cases/${confirmed.caseId}/confirm`, { reason: "true match" })).status).toBe(200);
    const r2 = await api.post(`/v1/aml/cases/${confirmed.caseId}/approve-clear`, {});
    expect([r2.status, r2.body.error.details.reason]).toEqual([409, "not_awaiting_approval"]);

    const cleared = await flaggedPerson(db, org.orgId);
    expect((await api.post("/v1/aml/clear", { subjectDid: cleared.person.did, reason: "false positive" })).status).toBe(200);
    const r3 = await api.post(`/v1/aml/cases/${cleared.caseId}/approve-clear`, {});
    expect([r3.status, r3.body.error.details.reason]).toEqual([409, "not_awaiting_approval"]);
  });

  it("the database refuses an approval by the proposer, or an approval without a proposal, even written directly", async () => {
    const { db, org } = await setup();
    const { caseId } = await flaggedPerson(db, org.orgId);
    await db.amlCase.update({
      where: { id: caseId },
      data: { status: "pending_approval", proposedBy: "api_key:x", proposedAt: new Date(), proposeReason: "r" },
    });
    await expect(
      db.amlCase.update({
        where: { id: caseId },
        data: { status: "cleared", approvedBy: "api_key:x", approvedAt: new Date(), closedAt: new Date() },
      }),
    ).rejects.toThrow(/aml_cases_four_eyes_check/);
    await expect(db.$executeRawUnsafe(`UPDATE aml_cases SET "approvedBy" = "proposedBy" WHERE id = $1::uuid`, caseId)).rejects.toThrow(
      /four_eyes/,
    );
    const other = await flaggedPerson(db, org.orgId);
    await expect(db.amlCase.update({ where: { id: other.caseId }, data: { approvedBy: "member:someone@example.com" } })).rejects.toThrow(
      /four_eyes/,
    );
    // A closed status needs a closing time, and pending needs a proposer.
    await expect(db.amlCase.update({ where: { id: other.caseId }, data: { status: "confirmed" } })).rejects.toThrow(
      /aml_cases_closed_check/,
    );
    await expect(db.amlCase.update({ where: { id: other.caseId }, data: { status: "pending_approval" } })).rejects.toThrow(
      /aml_cases_pending_check/,
    );
    expect(await db.amlCase.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ status: "pending_approval", approvedBy: null });
  });
});

describe("POST /v1/aml/cases/{caseId}/confirm", () => {
  it("open → confirmed and pending_approval → confirmed keep the flags up; a closed case is 409 case_closed", async () => {
    const { db, org, api, url, actorA } = await setup({ requireSecondApprovalToClearAml: true });
    const a = await flaggedPerson(db, org.orgId, { sanctions: true, severity: "critical", score: 88 });
    const res = await api.post(`/v1/aml/cases/${a.caseId}/confirm`, { reason: "Matches the listed entry: same birth date and country" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      caseId: a.caseId,
      status: "confirmed",
      confirmedBy: actorA,
      confirmReason: "Matches the listed entry: same birth date and country",
    });
    expect(res.body.closedAt).toEqual(expect.any(String));
    expect(await flagsOf(db, a.person.id)).toEqual({ pepFlag: true, sanctionsFlag: true, riskScore: 88 });

    const b = await flaggedPerson(db, org.orgId);
    await api.post("/v1/aml/clear", { subjectDid: b.person.did, reason: "looks like a namesake" });
    const other = await extraKey(db, org.orgId);
    const pending = await client(url, other.raw).post(`/v1/aml/cases/${b.caseId}/confirm`, { reason: "No: it is the same person" });
    expect(pending.body).toMatchObject({ status: "confirmed", confirmedBy: other.actor, proposedBy: actorA });
    expect(await flagsOf(db, b.person.id)).toMatchObject({ pepFlag: true });

    for (const caseId of [a.caseId, b.caseId]) {
      const again = await api.post(`/v1/aml/cases/${caseId}/confirm`, { reason: "again" });
      expect([again.status, again.body.error.details.reason]).toEqual([409, "case_closed"]);
    }
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.confirmed" } })).toBe(2);
  });

  it("confirm of a cleared case is 409 case_closed and the flags stay down", async () => {
    const { db, org, api } = await setup();
    const { person: p, caseId } = await flaggedPerson(db, org.orgId);
    await api.post("/v1/aml/clear", { subjectDid: p.did, reason: "false positive" });
    const res = await api.post(`/v1/aml/cases/${caseId}/confirm`, { reason: "too late" });
    expect([res.status, res.body.error.details.reason]).toEqual([409, "case_closed"]);
    expect(await flagsOf(db, p.id)).toEqual({ pepFlag: false, sanctionsFlag: false, riskScore: 0 });
  });

  it("404 for an unknown case, an id that is not a uuid, and another organization's case; 400 without a reason", async () => {
    const { db, api } = await setup();
    const other = await createTestOrg();
    const theirs = await flaggedPerson(db, other.orgId);
    for (const id of [randomUUID(), "not-a-uuid", theirs.caseId]) {
      expect((await api.post(`/v1/aml/cases/${id}/confirm`, { reason: "x" })).status, id).toBe(404);
      expect((await api.post(`/v1/aml/cases/${id}/approve-clear`, {})).status, id).toBe(404);
    }
    expect((await db.amlCase.findUniqueOrThrow({ where: { id: theirs.caseId } })).status).toBe("open");
    const bad = await api.post(`/v1/aml/cases/${randomUUID()}/confirm`, { reason: "x".repeat(501) });
    expect(bad.status).toBe(400);
  });
});

describe("GET /v1/aml/cases", () => {
  it("lists open and pending cases only, worst priority first, then oldest first", async () => {
    const { db, org, api } = await setup({ requireSecondApprovalToClearAml: true });
    const pepOld = await flaggedPerson(db, org.orgId, { pep: true });
    const sanctions = await flaggedPerson(db, org.orgId, { sanctions: true, pep: false, severity: "critical" });
    const pepNew = await flaggedPerson(db, org.orgId, { pep: true });
    const low = await person(db, org.orgId);
    const lowCase = (await api.post("/v1/aml/clear", { subjectDid: low.did, reason: "pre-emptive review" })).body.caseId;
    const closed = await flaggedPerson(db, org.orgId, { sanctions: true, severity: "critical" });
    await api.post(`/v1/aml/cases/${closed.caseId}/confirm`, { reason: "true match" });
    await db.amlCase.update({ where: { id: pepOld.caseId }, data: { createdAt: new Date(Date.now() - 60_000) } });

    const res = await api.get("/v1/aml/cases");
    expect(res.status).toBe(200);
    expect(res.body.cases.map((c: any) => c.caseId)).toEqual([sanctions.caseId, pepOld.caseId, pepNew.caseId, lowCase]);
    expect(res.body.cases.map((c: any) => [c.priority, c.status])).toEqual([
      ["critical", "open"],
      ["high", "open"],
      ["high", "open"],
      ["low", "pending_approval"],
    ]);
    expect(res.body.cases[0].hits[0]).toMatchObject({ severity: "critical", sanctions: true });
  });
});

async function call(url: string, key: string, path: string) {
  const res = await fetch(url + path, { method: "POST", headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, text: await res.text() };
}
