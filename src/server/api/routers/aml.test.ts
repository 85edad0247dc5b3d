import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import type { MemberRole } from "@/generated/prisma/enums.ts";
import { flaggedPerson, serviceCtx } from "../../testing/aml";
import { createTestOrg, testServer } from "../../testing/harness";
import { createCaller } from "../root";

// The console's AML casework procedures: the member is the actor, and another organization's
// case is as absent as an unknown one. Roles are checked for every procedure in ../roles.test.ts.

async function amlAs(orgId: string, email: string, role: MemberRole = "compliance_officer") {
  const { db } = await testServer();
  const svc = await serviceCtx(db, orgId, { type: "member", email, role });
  return createCaller({ svc }).aml;
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "OK",
    (e: unknown) => (e instanceof TRPCError ? e.code : `not a TRPCError: ${String(e)}`),
  );

describe("aml casework procedures", () => {
  it("assign, comment, timeline, export and next act as the signed-in member", async () => {
    const { db } = await testServer();
    const org = await createTestOrg();
    await db.consoleMember.create({ data: { orgId: org.orgId, email: "ada@aml.test", role: "compliance_officer" } });
    await db.consoleMember.create({ data: { orgId: org.orgId, email: "ben@aml.test", role: "compliance_officer" } });
    const ada = await amlAs(org.orgId, "ada@aml.test");
    const a = await flaggedPerson(db, org.orgId);
    const b = await flaggedPerson(db, org.orgId);

    expect((await ada.next({})).case).toMatchObject({ caseId: a.caseId, assigneeEmail: "ada@aml.test" });
    expect(
      await ada.reassign({ caseId: a.caseId, body: { assigneeEmail: "ben@aml.test", reason: "Ben knows this customer" } }),
    ).toMatchObject({
      assigneeEmail: "ben@aml.test",
    });
    expect(await ada.assign({ caseId: b.caseId, body: { assigneeEmail: "ada@aml.test" } })).toMatchObject({
      assigneeEmail: "ada@aml.test",
    });
    expect((await ada.queue({ mine: true, status: "open", limit: 50 })).cases.map((c) => c.caseId)).toEqual([b.caseId]);
    expect(await ada.unassign({ caseId: b.caseId, body: {} })).toMatchObject({ assigneeEmail: null });
    const note = await ada.comment({ caseId: a.caseId, body: { text: "Asked Ben to take it." } });
    expect(note.author).toBe("member:ada@aml.test");
    const t = await ada.timeline({ caseId: a.caseId });
    expect(t.events.map((e) => [e.kind, e.actor])).toEqual([
      ["opened", "system:screening"],
      ["hit_added", "system:screening"],
      ["webhook_sent", "system:screening"],
      ["assigned", "member:ada@aml.test"],
      ["reassigned", "member:ada@aml.test"],
      ["comment", "member:ada@aml.test"],
    ]);
    const bundle = await ada.exportCase({ caseId: a.caseId });
    expect(bundle.timeline.events.at(-1)).toMatchObject({ kind: "exported", actor: "member:ada@aml.test" });
    expect((await ada.overview()).counts).toMatchObject({ openCases: 2, overdue: 0 });
  });

  it("another organization's case is NOT_FOUND for every procedure taking a case, and its queue, next case and SLA stay its own", async () => {
    const { db } = await testServer();
    const mine = await createTestOrg();
    const theirs = await createTestOrg();
    await db.consoleMember.create({ data: { orgId: mine.orgId, email: "ada@aml.test", role: "compliance_officer" } });
    await db.consoleMember.create({ data: { orgId: theirs.orgId, email: "zed@aml.test", role: "compliance_officer" } });
    const other = await flaggedPerson(db, theirs.orgId);
    const ada = await amlAs(mine.orgId, "ada@aml.test");
    const caseId = other.caseId;
    const calls: Record<string, () => Promise<unknown>> = {
      detail: () => ada.detail({ caseId }),
      timeline: () => ada.timeline({ caseId }),
      exportCase: () => ada.exportCase({ caseId }),
      approveClear: () => ada.approveClear({ caseId, body: {} }),
      confirm: () => ada.confirm({ caseId, body: { reason: "not mine" } }),
      assign: () => ada.assign({ caseId, body: { assigneeEmail: "ada@aml.test" } }),
      reassign: () => ada.reassign({ caseId, body: { assigneeEmail: "ada@aml.test", reason: "not mine" } }),
      unassign: () => ada.unassign({ caseId, body: {} }),
      comment: () => ada.comment({ caseId, body: { text: "not mine" } }),
    };
    for (const [name, call] of Object.entries(calls)) expect([name, await codeOf(call())]).toEqual([name, "NOT_FOUND"]);
    // Their member cannot be an assignee here either.
    const mineCase = await flaggedPerson(db, mine.orgId);
    expect(await codeOf(ada.assign({ caseId: mineCase.caseId, body: { assigneeEmail: "zed@aml.test" } }))).toBe("NOT_FOUND");

    expect((await ada.queue({ status: "all", limit: 500 })).cases.map((c) => c.caseId)).toEqual([mineCase.caseId]);
    expect((await ada.next({})).case?.caseId).toBe(mineCase.caseId);
    expect((await ada.next({})).case).toBeNull();
    const admin = await amlAs(mine.orgId, "admin@aml.test", "admin");
    await admin.updateSla({ critical: 5 });
    expect((await ada.sla()).hours.critical).toBe(5);
    expect((await (await amlAs(theirs.orgId, "zed@aml.test")).sla()).hours.critical).toBe(24);
    const row = await db.amlCase.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ status: "open", assigneeEmail: null });
    expect(await db.amlCaseComment.count({ where: { caseId } })).toBe(0);
    expect(await db.amlCaseEvent.count({ where: { caseId } })).toBe(3);
  });
});
