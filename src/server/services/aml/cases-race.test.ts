import { describe, expect, it } from "vitest";
import { extraKey, flaggedPerson } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { holdPersonLock } from "../../testing/interleave";
import { verifyChain } from "../audit/verify";
import { CLEAR_SETTLED_WINDOW_MS } from "./cases";

// Real parallel HTTP calls against one case: row locks and conditional updates must let exactly
// one transition win, answer the others 409, and never leave the flags out of step with the case.

async function setup(fourEyes: boolean) {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  if (fourEyes) await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
  return { url, db, org, api: client(url, org.apiKey) };
}

const flags = async (db: any, id: string) => {
  const p = await db.person.findUniqueOrThrow({ where: { id } });
  return { pepFlag: p.pepFlag, sanctionsFlag: p.sanctionsFlag, riskScore: p.riskScore };
};

describe("AML case races", () => {
  it("10 parallel approvals of one proposal by 10 other identities: exactly one 200, nine 409 not_awaiting_approval, one aml.cleared", async () => {
    const { url, db, org, api } = await setup(true);
    const { person, caseId } = await flaggedPerson(db, org.orgId, { sanctions: true, severity: "critical", score: 99 });
    expect((await api.post("/v1/aml/clear", { subjectDid: person.did, reason: "namesake" })).body.pendingApproval).toBe(true);
    const keys = await Promise.all(Array.from({ length: 10 }, (_, i) => extraKey(db, org.orgId, `approver ${i}`)));
    const answers = await Promise.all(keys.map((k) => client(url, k.raw).post(`/v1/aml/cases/${caseId}/approve-clear`, { notes: k.id })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(409)]);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error.details.reason).toBe("not_awaiting_approval");
    const winner = answers.find((a) => a.status === 200)!;
    const c = await db.amlCase.findUniqueOrThrow({ where: { id: caseId } });
    expect(c.status).toBe("cleared");
    expect(c.approvedBy).toBe(winner.body.approvedBy);
    // The winner's notes, sealed under the person's key at rest and opened in the answer.
    expect(winner.body.approveNotes).toBe(keys.find((k) => k.actor === c.approvedBy)!.id);
    expect(c.approveNotes).toMatch(new RegExp(`^p1\\.${person.id}\\.`));
    expect(await flags(db, person.id)).toEqual({ pepFlag: false, sanctionsFlag: false, riskScore: 0 });
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.cleared" } })).toBe(1);
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("the same identity approving its own proposal 10 times at once: ten 403 same_approver, nothing changes", async () => {
    const { db, org, api } = await setup(true);
    const { person, caseId } = await flaggedPerson(db, org.orgId);
    await api.post("/v1/aml/clear", { subjectDid: person.did, reason: "namesake" });
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.post(`/v1/aml/cases/${caseId}/approve-clear`, {})));
    expect(answers.map((a) => [a.status, a.body.error?.details?.reason])).toEqual(Array(10).fill([403, "same_approver"]));
    expect((await db.amlCase.findUniqueOrThrow({ where: { id: caseId } })).status).toBe("pending_approval");
    expect(await flags(db, person.id)).toMatchObject({ pepFlag: true });
  });

  it("clear and confirm at once, many times: one wins, the other is 409, and the flags always match the winner", async () => {
    const { url, db, org, api } = await setup(false);
    const other = client(url, (await extraKey(db, org.orgId)).raw);
    const winners = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const { person, caseId } = await flaggedPerson(db, org.orgId, { sanctions: true, severity: "critical", score: 90 });
      const [clear, confirm] = await Promise.all([
        api.post("/v1/aml/clear", { subjectDid: person.did, reason: "false positive" }),
        other.post(`/v1/aml/cases/${caseId}/confirm`, { reason: "true match" }),
      ]);
      expect([clear.status, confirm.status].sort(), `round ${i}: ${clear.text} ${confirm.text}`).toEqual([200, 409]);
      const loser = clear.status === 409 ? clear : confirm;
      expect(loser.body.error.details.reason).toBe("case_closed");
      const c = await db.amlCase.findUniqueOrThrow({ where: { id: caseId } });
      const f = await flags(db, person.id);
      if (clear.status === 200) {
        winners.add("clear");
        expect(clear.body).toMatchObject({ cleared: true, caseId });
        expect(c.status).toBe("cleared");
        expect(f).toEqual({ pepFlag: false, sanctionsFlag: false, riskScore: 0 });
      } else {
        winners.add("confirm");
        expect(c.status).toBe("confirmed");
        expect(f).toEqual({ pepFlag: true, sanctionsFlag: true, riskScore: 90 });
      }
      // No second case was opened by hand behind the confirm's back.
      expect(await db.amlCase.count({ where: { personId: person.id } })).toBe(1);
    }
    expect(winners.size).toBeGreaterThan(0);
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("approve-clear and confirm of one pending case at once: one wins, the other 409, flags follow the winner", async () => {
    const { url, db, org, api } = await setup(true);
    const approver = client(url, (await extraKey(db, org.orgId, "approver")).raw);
    const confirmer = client(url, (await extraKey(db, org.orgId, "confirmer")).raw);
    for (let i = 0; i < 5; i++) {
      const { person, caseId } = await flaggedPerson(db, org.orgId);
      await api.post("/v1/aml/clear", { subjectDid: person.did, reason: "namesake" });
      const [approve, confirm] = await Promise.all([
        approver.post(`/v1/aml/cases/${caseId}/approve-clear`, {}),
        confirmer.post(`/v1/aml/cases/${caseId}/confirm`, { reason: "true match" }),
      ]);
      expect([approve.status, confirm.status].sort()).toEqual([200, 409]);
      const c = await db.amlCase.findUniqueOrThrow({ where: { id: caseId } });
      const f = await flags(db, person.id);
      if (approve.status === 200) {
        expect(confirm.body.error.details.reason).toBe("case_closed");
        expect([c.status, f.pepFlag]).toEqual(["cleared", false]);
      } else {
        expect(approve.body.error.details.reason).toBe("not_awaiting_approval");
        expect([c.status, f.pepFlag]).toEqual(["confirmed", true]);
      }
    }
  });

  it("two identities clearing one case at once without four-eyes: one 200, the other 409 case_closed, one case", async () => {
    const { url, db, org, api } = await setup(false);
    const other = client(url, (await extraKey(db, org.orgId)).raw);
    for (let i = 0; i < 5; i++) {
      const { person, caseId } = await flaggedPerson(db, org.orgId);
      const answers = await Promise.all([
        api.post("/v1/aml/clear", { subjectDid: person.did, reason: "namesake" }),
        other.post("/v1/aml/clear", { subjectDid: person.did, reason: "namesake too" }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)!.body.error.details.reason).toBe("case_closed");
      expect(await db.amlCase.findMany({ where: { personId: person.id }, select: { id: true, status: true } })).toEqual([
        { id: caseId, status: "cleared" },
      ]);
      expect(await flags(db, person.id)).toEqual({ pepFlag: false, sanctionsFlag: false, riskScore: 0 });
    }
  });

  // A repeated clear is answered the same whichever way the requests interleave (docs/decisions.md,
  // "AML cases"): the tests below put them in each order on purpose, holding the person's row lock
  // (the first lock every transition takes) from the test's own connection.
  const clearBody = (subjectDid: string) => ({ subjectDid, reason: "namesake" });
  // RACE_REPEATS=49 runs each of these 50 times (to show they hold under load, not by luck).
  const repeat = { repeats: Number(process.env.RACE_REPEATS ?? 0) };

  it(
    "the same identity retrying a clear, all requests having seen the open case: one clear, the same answer three times",
    repeat,
    async () => {
      const { db, org, api } = await setup(false);
      const { person, caseId } = await flaggedPerson(db, org.orgId);
      const lock = await holdPersonLock(person.id);
      const pending = [1, 2, 3].map(() => api.post("/v1/aml/clear", clearBody(person.did)));
      await lock.waitForWaiters(3);
      await lock.release();
      const answers = await Promise.all(pending);
      for (const a of answers)
        expect([a.status, a.body]).toEqual([200, { cleared: true, pendingApproval: false, caseId, subjectDid: person.did }]);
      expect(await db.amlCase.count({ where: { personId: person.id } })).toBe(1);
      expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.cleared" } })).toBe(1);
    },
  );

  it("the same identity retrying a clear after the first one committed: the same answer, no case opened by hand", repeat, async () => {
    const { db, org, api } = await setup(false);
    const { person, caseId } = await flaggedPerson(db, org.orgId);
    const first = await api.post("/v1/aml/clear", clearBody(person.did));
    const again = await api.post("/v1/aml/clear", clearBody(person.did));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body).toEqual({ cleared: true, pendingApproval: false, caseId, subjectDid: person.did });
    expect(await db.amlCase.count({ where: { personId: person.id } })).toBe(1);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.cleared" } })).toBe(1);
  });

  it(
    "two identities clearing, both having seen the open case: the first to take the lock clears, the other is 409 case_closed",
    repeat,
    async () => {
      const { url, db, org, api } = await setup(false);
      const other = client(url, (await extraKey(db, org.orgId)).raw);
      const { person, caseId } = await flaggedPerson(db, org.orgId);
      const lock = await holdPersonLock(person.id);
      const pending = [api, other].map((c) => c.post("/v1/aml/clear", clearBody(person.did)));
      await lock.waitForWaiters(2);
      await lock.release();
      const answers = await Promise.all(pending);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)!.body.error.details.reason).toBe("case_closed");
      expect(answers.find((a) => a.status === 200)!.body.caseId).toBe(caseId);
      expect(await db.amlCase.count({ where: { personId: person.id } })).toBe(1);
    },
  );

  it("another identity's clear after the first one committed is 409 case_closed within the window, and opens a case by hand after it", async () => {
    const { url, db, org, api } = await setup(false);
    const other = client(url, (await extraKey(db, org.orgId)).raw);
    const { person, caseId } = await flaggedPerson(db, org.orgId);
    expect((await api.post("/v1/aml/clear", clearBody(person.did))).status).toBe(200);
    const late = await other.post("/v1/aml/clear", clearBody(person.did));
    expect([late.status, late.body.error?.details?.reason]).toEqual([409, "case_closed"]);
    expect(await db.amlCase.count({ where: { personId: person.id } })).toBe(1);
    // Once the close is older than the window, "no open case" means "open one by hand" again.
    await db.amlCase.update({ where: { id: caseId }, data: { closedAt: new Date(Date.now() - CLEAR_SETTLED_WINDOW_MS - 1000) } });
    const later = await other.post("/v1/aml/clear", clearBody(person.did));
    expect(later.status).toBe(200);
    expect(later.body.caseId).not.toBe(caseId);
    expect(await db.amlCase.count({ where: { personId: person.id } })).toBe(2);
  });

  it("an Idempotency-Key replays the first clear exactly, also after the window", async () => {
    const { db, org, api } = await setup(false);
    const { person, caseId } = await flaggedPerson(db, org.orgId);
    const headers = { "Idempotency-Key": "clear-once-1" };
    const first = await api.post("/v1/aml/clear", clearBody(person.did), { headers });
    await db.amlCase.update({ where: { id: caseId }, data: { closedAt: new Date(Date.now() - CLEAR_SETTLED_WINDOW_MS - 1000) } });
    const replay = await api.post("/v1/aml/clear", clearBody(person.did), { headers });
    expect([replay.status, replay.text]).toEqual([first.status, first.text]);
    expect(await db.amlCase.count({ where: { personId: person.id } })).toBe(1);
  });
});
