import { describe, expect, it } from "vitest";
import { flaggedPerson } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { verifyChain } from "../audit/verify";
import { notifyOverdueCases } from ".";

// The overdue email (src/server/jobs/aml-overdue.ts): once per case, to the assignee and the
// organization's compliance officers, through the messaging provider (the dev outbox in tests).

describe("notifyOverdueCases", () => {
  it("emails the assignee and the compliance officers once when a case passes its deadline; the dev outbox shows it", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const tag = Math.random().toString(36).slice(2, 8);
    const ada = `ada-${tag}@example.test`;
    const cleo = `cleo-${tag}@example.test`;
    const viewer = `vic-${tag}@example.test`;
    await db.consoleMember.createMany({
      data: [
        { orgId: org.orgId, email: ada, role: "admin" },
        { orgId: org.orgId, email: cleo, role: "compliance_officer" },
        { orgId: org.orgId, email: viewer, role: "viewer" },
      ],
    });
    const late = await flaggedPerson(db, org.orgId);
    const onTime = await flaggedPerson(db, org.orgId);
    const closed = await flaggedPerson(db, org.orgId);
    expect((await api.post(`/v1/aml/cases/${late.caseId}/assign`, { assigneeEmail: ada })).status).toBe(200);
    await api.post(`/v1/aml/cases/${closed.caseId}/confirm`, { reason: "true match" });
    const past = new Date(Date.now() - 60_000);
    await db.amlCase.updateMany({ where: { id: { in: [late.caseId, closed.caseId] } }, data: { dueAt: past } });

    const first = await notifyOverdueCases(db);
    expect(first.cases).toBeGreaterThanOrEqual(1);
    const mail = await db.devOutboxMessage.findMany({ where: { orgId: org.orgId, channel: "email" }, orderBy: { to: "asc" } });
    expect(mail.map((m) => m.to)).toEqual([ada, cleo]);
    expect(mail[0]!.subject).toContain("AML case overdue");
    expect(mail[0]!.body).toContain(late.caseId);
    expect(mail[0]!.body).not.toContain(late.person.did);

    // A second run, or a later one, sends nothing more for this case.
    await notifyOverdueCases(db);
    await notifyOverdueCases(db, { now: new Date(Date.now() + 3_600_000) });
    expect(await db.devOutboxMessage.count({ where: { orgId: org.orgId, channel: "email" } })).toBe(2);
    const row = await db.amlCase.findUniqueOrThrow({ where: { id: late.caseId } });
    expect(row.overdueNotifiedAt).toBeInstanceOf(Date);
    expect((await db.amlCase.findUniqueOrThrow({ where: { id: onTime.caseId } })).overdueNotifiedAt).toBeNull();
    expect((await db.amlCase.findUniqueOrThrow({ where: { id: closed.caseId } })).overdueNotifiedAt).toBeNull();
    expect(await db.amlCaseEvent.findMany({ where: { caseId: late.caseId, kind: "overdue" }, select: { actor: true } })).toEqual([
      { actor: "system:aml-overdue" },
    ]);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.case_overdue" } })).toBe(1);
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });
});
