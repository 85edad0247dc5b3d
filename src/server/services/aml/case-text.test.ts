import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { openForPerson } from "../../crypto/person-box";
import type { Db } from "../../db/client";
import { extraKey, flaggedPerson, serviceCtx } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { getPersonDetail } from "../people";
import { getCaseDetail } from ".";

// What compliance officers write about a person (docs/data-protection.md, "Crypto-shredding"):
// sealed under the person's data key at rest, opened on every read (the API, the timeline, the
// signed export, the console), and unreadable ("[erased]") once the person is erased, while the
// case itself (status, times, actors) stays.

const WORD = "Ofosuhene";

type RawCase = { id: string; reason: string; proposeReason: string | null; approveNotes: string | null; confirmReason: string | null };
const rawCases = (db: Db, orgId: string) =>
  db.$queryRaw<RawCase[]>`
    SELECT id::text AS id, reason, "proposeReason", "approveNotes", "confirmReason" FROM aml_cases WHERE "orgId" = ${orgId}::uuid`;
const rawComments = (db: Db, caseId: string) =>
  db.$queryRaw<{ body: string }[]>`SELECT body FROM aml_case_comments WHERE "caseId" = ${caseId}::uuid ORDER BY "createdAt"`;
const rawEvents = (db: Db, caseId: string) =>
  db.$queryRaw<{ kind: string; actor: string; data: Record<string, unknown> }[]>`
    SELECT kind, actor, data FROM aml_case_events WHERE "caseId" = ${caseId}::uuid ORDER BY seq`;
/** Rows of the AML tables of the organization whose text holds `word` anywhere, in clear. */
const clearCopies = async (db: Db, orgId: string, word: string) => {
  const [r] = await db.$queryRaw<{ n: number }[]>`
    SELECT (SELECT count(*) FROM aml_cases x WHERE x."orgId" = ${orgId}::uuid AND x::text ILIKE ${`%${word}%`})
         + (SELECT count(*) FROM aml_case_comments x WHERE x."orgId" = ${orgId}::uuid AND x::text ILIKE ${`%${word}%`})
         + (SELECT count(*) FROM aml_case_events x WHERE x."orgId" = ${orgId}::uuid AND x::text ILIKE ${`%${word}%`}) AS n`;
  return Number(r!.n);
};

describe("what officers write about a person", () => {
  it("is stored sealed under the person's key, read back in clear everywhere, and reads [erased] after the erasure while the case stays", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
    for (const email of ["ada@example.test", "ben@example.test"])
      await db.consoleMember.create({ data: { orgId: org.orgId, email, role: "compliance_officer", active: true } });
    const approver = await extraKey(db, org.orgId);
    const { person: p, caseId: a } = await flaggedPerson(db, org.orgId);
    const sealed = new RegExp(`^p1\\.${p.id}\\.`);

    const texts = {
      reassign: `Ada is away; ${WORD} needs an answer this week`,
      comment: `${WORD} phoned: the birth date on the passport is 1970-01-02`,
      propose: `${WORD} is a namesake of the listed entry`,
      notes: `Checked ${WORD}'s passport myself`,
      byHand: `${WORD} again, after a tip-off`,
      confirm: `${WORD} matches the entry after all`,
    };
    // Case A: a screening hit, assigned and reassigned, commented, proposed and approved (four-eyes).
    expect((await api.post(`/v1/aml/cases/${a}/assign`, { assigneeEmail: "ada@example.test" })).status).toBe(200);
    expect((await api.post(`/v1/aml/cases/${a}/reassign`, { assigneeEmail: "ben@example.test", reason: texts.reassign })).status).toBe(200);
    const comment = await api.post(`/v1/aml/cases/${a}/comments`, { text: texts.comment });
    expect(comment.status, comment.text).toBe(201);
    expect(comment.body.text).toBe(texts.comment);
    expect((await api.post("/v1/aml/clear", { subjectDid: p.did, reason: texts.propose })).body).toMatchObject({ pendingApproval: true });
    const approved = await client(url, approver.raw).post(`/v1/aml/cases/${a}/approve-clear`, { notes: texts.notes });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ status: "cleared", proposeReason: texts.propose, approveNotes: texts.notes });
    // Case B: opened by hand to clear (its reason holds the officer's words), then confirmed. A
    // clear just after another identity closed the person's last case would be taken for a race
    // with that close (cases.ts, CLEAR_SETTLED_WINDOW_MS): A closed a while ago.
    await db.amlCase.update({ where: { id: a }, data: { closedAt: new Date(Date.now() - 3_600_000) } });
    const opened = await api.post("/v1/aml/clear", { subjectDid: p.did, reason: texts.byHand });
    expect(opened.body).toMatchObject({ pendingApproval: true });
    const b = opened.body.caseId as string;
    const confirmed = await api.post(`/v1/aml/cases/${b}/confirm`, { reason: texts.confirm });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ status: "confirmed", confirmReason: texts.confirm });

    // At rest: ciphertext under the person's key, and the word nowhere in the AML tables.
    const rows = new Map((await rawCases(db, org.orgId)).map((r) => [r.id, r]));
    expect(rows.get(a)).toMatchObject({ proposeReason: expect.stringMatching(sealed), approveNotes: expect.stringMatching(sealed) });
    // A screening hit's reason is the service's own words: it stays readable.
    expect(rows.get(a)!.reason).toMatch(/^Screening match on a PEP list/);
    expect(rows.get(b)).toMatchObject({
      reason: expect.stringMatching(sealed),
      proposeReason: expect.stringMatching(sealed),
      confirmReason: expect.stringMatching(sealed),
      approveNotes: null,
    });
    expect(await rawComments(db, a)).toEqual([{ body: expect.stringMatching(sealed) }]);
    const eventsA = await rawEvents(db, a);
    expect(eventsA.find((e) => e.kind === "reassigned")!.data).toMatchObject({
      from: "ada@example.test",
      reason: expect.stringMatching(sealed),
    });
    expect(eventsA.find((e) => e.kind === "proposed")!.data.reason).toMatch(sealed);
    expect(eventsA.find((e) => e.kind === "approved")!.data.notes).toMatch(sealed);
    expect((await rawEvents(db, b)).find((e) => e.kind === "confirmed")!.data).toMatchObject({
      reason: expect.stringMatching(sealed),
      previousStatus: "pending_approval",
    });
    expect(await clearCopies(db, org.orgId, WORD)).toBe(0);
    // The audit entry of the approval carries the proposal's reason sealed once, not the case's ciphertext sealed again.
    const cleared = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "aml.cleared" } });
    expect(await openForPerson(db, (cleared.data as { reason: string }).reason)).toBe(texts.propose);

    // Read back in clear: the case list, the timeline, the signed export, the console's case and person pages.
    const list = async () =>
      new Map(((await api.get("/v1/aml/cases?status=all")).body.cases as Record<string, unknown>[]).map((c) => [c.caseId, c]));
    const before = await list();
    expect(before.get(a)).toMatchObject({ proposeReason: texts.propose, approveNotes: texts.notes, confirmReason: null });
    expect(before.get(b)).toMatchObject({
      reason: `Opened by hand to clear: ${texts.byHand}`,
      proposeReason: texts.byHand,
      confirmReason: texts.confirm,
    });
    const timeline = (await api.get(`/v1/aml/cases/${a}/timeline`)).body;
    const eventOf = (t: { events: { kind: string }[] }, kind: string) => t.events.find((e) => e.kind === kind) as Record<string, any>;
    expect(eventOf(timeline, "comment")).toMatchObject({ text: texts.comment, data: { commentId: comment.body.commentId } });
    expect(eventOf(timeline, "reassigned").data).toMatchObject({ reason: texts.reassign, assigneeEmail: "ben@example.test" });
    expect(eventOf(timeline, "proposed").data.reason).toBe(texts.propose);
    expect(eventOf(timeline, "approved").data.notes).toBe(texts.notes);
    const exported = await api.post(`/v1/aml/cases/${b}/export`, {});
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.timeline.case).toMatchObject({ confirmReason: texts.confirm, proposeReason: texts.byHand });
    expect(eventOf(exported.body.timeline, "confirmed").data.reason).toBe(texts.confirm);
    expect(exported.body.checkpoint.timelineDigest).toBe(sha256Hex(jcs(exported.body.timeline)));
    const officer = await serviceCtx(db, org.orgId, { type: "member", email: "ada@example.test", role: "compliance_officer" });
    expect((await getCaseDetail(officer, a)).case).toMatchObject({ proposeReason: texts.propose, approveNotes: texts.notes });
    const page = await getPersonDetail(officer, p.did);
    expect(page.amlCases.find((c) => c.caseId === b)!.reason).toBe(`Opened by hand to clear: ${texts.byHand}`);

    // The erasure destroys the key: every text reads [erased]; the cases keep their status, times and actors.
    const erased = await api.post(`/v1/people/${encodeURIComponent(p.did)}/erase`, {});
    expect(erased.status, erased.text).toBe(200);
    const after = await list();
    const kept = ["status", "priority", "openedBy", "openedAt", "proposedBy", "proposedAt", "approvedBy", "approvedAt"] as const;
    const keptOf = (c: Record<string, unknown>) =>
      Object.fromEntries([...kept, "confirmedBy", "confirmedAt", "closedAt"].map((k) => [k, c[k]]));
    for (const id of [a, b]) expect(keptOf(after.get(id)!)).toEqual(keptOf(before.get(id)!));
    expect(after.get(a)).toMatchObject({
      status: "cleared",
      approvedBy: approver.actor,
      proposeReason: "[erased]",
      approveNotes: "[erased]",
    });
    expect(after.get(b)).toMatchObject({ status: "confirmed", reason: "[erased]", proposeReason: "[erased]", confirmReason: "[erased]" });
    const timelineAfter = (await api.get(`/v1/aml/cases/${a}/timeline`)).body;
    expect(timelineAfter.events.map((e: { kind: string; actor: string }) => [e.kind, e.actor])).toEqual(
      timeline.events.map((e: { kind: string; actor: string }) => [e.kind, e.actor]),
    );
    expect(eventOf(timelineAfter, "comment")).toMatchObject({ text: "[erased]", data: { commentId: comment.body.commentId } });
    expect(eventOf(timelineAfter, "reassigned").data).toEqual({ reason: "[erased]" });
    expect(eventOf(timelineAfter, "proposed").data).toEqual({ reason: "[erased]" });
    expect(eventOf(timelineAfter, "approved").data).toEqual({ notes: "[erased]" });
    const exportAfter = (await api.post(`/v1/aml/cases/${b}/export`, {})).body;
    expect(exportAfter.timeline.case).toMatchObject({ status: "confirmed", confirmReason: "[erased]", reason: "[erased]" });
    expect(eventOf(exportAfter.timeline, "confirmed").data).toEqual({ reason: "[erased]" });
    expect(JSON.stringify([exportAfter, timelineAfter, [...after.values()]])).not.toContain(WORD);
    expect((await getPersonDetail(officer, p.did)).amlCases.find((c) => c.caseId === b)!.reason).toBe("[erased]");
    // The ciphertext stays where it was; nothing can open it any more.
    expect((await rawCases(db, org.orgId)).find((r) => r.id === b)!.confirmReason).toMatch(sealed);
    expect(await rawComments(db, a)).toEqual([{ body: expect.stringMatching(sealed) }]);
    expect((await db.personKey.findUniqueOrThrow({ where: { personId: p.id } })).keySealed).toBeNull();
    // A note written after the erasure keeps nothing either.
    const late = await api.post(`/v1/aml/cases/${a}/comments`, { text: `${WORD} wrote to us` });
    expect(late.status, late.text).toBe(201);
    expect(late.body.text).toBe("[erased]");
    expect((await rawComments(db, a)).at(-1)).toEqual({ body: "[erased]" });
    expect(await clearCopies(db, org.orgId, WORD)).toBe(0);
  });

  it("stays in clear on a case that names no person (an account alone): there is no key to seal it under", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const kase = await db.amlCase.create({
      data: {
        orgId: org.orgId,
        subjectDid: `did:antelope:sandbox:${randomUUID()}`,
        priority: "low",
        reason: "Reported by the chain watcher",
        openedBy: "system:test",
      },
    });
    expect((await api.post(`/v1/aml/cases/${kase.id}/comments`, { text: "The account moved funds twice" })).status).toBe(201);
    expect((await api.post(`/v1/aml/cases/${kase.id}/confirm`, { reason: "Known mixer address" })).status).toBe(200);
    expect((await rawCases(db, org.orgId))[0]).toMatchObject({ confirmReason: "Known mixer address" });
    expect(await rawComments(db, kase.id)).toEqual([{ body: "The account moved funds twice" }]);
    expect((await rawEvents(db, kase.id)).find((e) => e.kind === "confirmed")!.data).toMatchObject({ reason: "Known mixer address" });
    const t = (await api.get(`/v1/aml/cases/${kase.id}/timeline`)).body;
    expect(t.case.confirmReason).toBe("Known mixer address");
    expect(t.events.find((e: { kind: string }) => e.kind === "comment").text).toBe("The account moved funds twice");
  });
});
