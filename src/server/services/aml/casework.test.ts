import { randomUUID } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { openForPerson } from "../../crypto/person-box";
import type { Db } from "../../db/client";
import { extraKey, flaggedPerson, serviceCtx } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { appErrorOf } from "../../testing/rejection";
import { verifyChain } from "../audit/verify";
import { approveClear, takeNextCase } from ".";

// Casework on AML cases over /v1 (docs/api/guides/aml-cases.md): assignment and the next case,
// comments, the timeline and its signed export, SLA deadlines.

async function setup(policy: { requireSecondApprovalToClearAml?: boolean } = {}) {
  const { url, db } = await testServer();
  const org = await createTestOrg();
  if (policy.requireSecondApprovalToClearAml) await db.organization.update({ where: { id: org.orgId }, data: policy });
  const key = await db.apiKey.findFirstOrThrow({ where: { orgId: org.orgId } });
  return { url, db, org, api: client(url, org.apiKey), keyActor: `api_key:${key.id}` };
}

const member = (
  db: Db,
  orgId: string,
  email: string,
  role: "viewer" | "operator" | "compliance_officer" | "admin" | "owner",
  active = true,
) => db.consoleMember.create({ data: { orgId, email, role, active } });

const eventsOf = async (db: Db, caseId: string) =>
  (await db.amlCaseEvent.findMany({ where: { caseId }, orderBy: { seq: "asc" } })).map((e) => e.kind);

describe("assign, reassign, unassign", () => {
  it("assigns to a compliance officer by email, reassigns with a reason, unassigns; each writes the timeline and the audit log", async () => {
    const { db, org, api, keyActor } = await setup();
    await member(db, org.orgId, "ada@example.test", "compliance_officer");
    await member(db, org.orgId, "ben@example.test", "admin");
    const { caseId } = await flaggedPerson(db, org.orgId);

    const assigned = await api.post(`/v1/aml/cases/${caseId}/assign`, { assigneeEmail: "Ada@Example.test" });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.body).toMatchObject({ caseId, assigneeEmail: "ada@example.test", assignedAt: expect.any(String) });

    const again = await api.post(`/v1/aml/cases/${caseId}/assign`, { assigneeEmail: "ben@example.test" });
    expect([again.status, again.body.error.details.reason]).toEqual([409, "already_assigned"]);
    const noReason = await api.post(`/v1/aml/cases/${caseId}/reassign`, { assigneeEmail: "ben@example.test" });
    expect(noReason.status).toBe(400);
    const moved = await api.post(`/v1/aml/cases/${caseId}/reassign`, { assigneeEmail: "ben@example.test", reason: "Ada is on leave" });
    expect(moved.body.assigneeEmail).toBe("ben@example.test");
    const back = await api.post(`/v1/aml/cases/${caseId}/unassign`, {});
    expect(back.body).toMatchObject({ assigneeEmail: null, assignedAt: null });
    const twice = await api.post(`/v1/aml/cases/${caseId}/unassign`, {});
    expect([twice.status, twice.body.error.details.reason]).toEqual([409, "not_assigned"]);
    const notAssigned = await api.post(`/v1/aml/cases/${caseId}/reassign`, { assigneeEmail: "ada@example.test", reason: "try" });
    expect([notAssigned.status, notAssigned.body.error.details.reason]).toEqual([409, "not_assigned"]);

    expect(await eventsOf(db, caseId)).toEqual(["opened", "hit_added", "webhook_sent", "assigned", "reassigned", "unassigned"]);
    const reassigned = await db.amlCaseEvent.findFirstOrThrow({ where: { caseId, kind: "reassigned" } });
    // The reason is the officer's own text: sealed under the person's key (case-text.ts).
    expect(reassigned).toMatchObject({
      actor: keyActor,
      data: { from: "ada@example.test", assigneeEmail: "ben@example.test", reason: expect.stringMatching(/^p1\./) },
    });
    expect(await openForPerson(db, (reassigned.data as { reason: string }).reason)).toBe("Ada is on leave");
    const audit = await db.auditEntry.findMany({
      where: { orgId: org.orgId, action: { startsWith: "aml.case_" } },
      orderBy: { seq: "asc" },
    });
    expect(audit.map((a) => a.action)).toEqual(["aml.case_assigned", "aml.case_reassigned", "aml.case_unassigned"]);
    expect(audit[1]!.data).toMatchObject({ caseId, from: "ada@example.test", assigneeEmail: "ben@example.test" });
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("refuses a member below compliance_officer, an inactive or unknown member, another organization's member, and a closed case", async () => {
    const { db, org, api } = await setup();
    const other = await createTestOrg();
    await member(db, org.orgId, "viewer@example.test", "viewer");
    await member(db, org.orgId, "operator@example.test", "operator");
    await member(db, org.orgId, "gone@example.test", "compliance_officer", false);
    await member(db, other.orgId, "theirs@example.test", "compliance_officer");
    const { caseId } = await flaggedPerson(db, org.orgId);
    for (const [email, status, reason] of [
      ["viewer@example.test", 409, "assignee_role"],
      ["operator@example.test", 409, "assignee_role"],
      ["gone@example.test", 404, "assignee_not_found"],
      ["nobody@example.test", 404, "assignee_not_found"],
      ["theirs@example.test", 404, "assignee_not_found"],
    ] as const) {
      const res = await api.post(`/v1/aml/cases/${caseId}/assign`, { assigneeEmail: email });
      expect([email, res.status, res.body.error.details.reason]).toEqual([email, status, reason]);
      // The answer never repeats the address.
      expect(res.text).not.toContain(email);
    }
    await member(db, org.orgId, "co@example.test", "compliance_officer");
    await api.post(`/v1/aml/cases/${caseId}/confirm`, { reason: "true match" });
    const closed = await api.post(`/v1/aml/cases/${caseId}/assign`, { assigneeEmail: "co@example.test" });
    expect([closed.status, closed.body.error.details.reason]).toEqual([409, "case_closed"]);
    expect((await db.amlCase.findUniqueOrThrow({ where: { id: caseId } })).assigneeEmail).toBeNull();
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: { startsWith: "aml.case_" } } })).toBe(0);
  });

  it("another organization's case is 404 for assign, reassign, unassign, comments, timeline and export", async () => {
    const { db, org, api } = await setup();
    await member(db, org.orgId, "co@example.test", "compliance_officer");
    const other = await createTestOrg();
    const theirs = await flaggedPerson(db, other.orgId);
    for (const id of [theirs.caseId, randomUUID(), "not-a-uuid"]) {
      const calls = [
        api.post(`/v1/aml/cases/${id}/assign`, { assigneeEmail: "co@example.test" }),
        api.post(`/v1/aml/cases/${id}/reassign`, { assigneeEmail: "co@example.test", reason: "moving it" }),
        api.post(`/v1/aml/cases/${id}/unassign`, {}),
        api.post(`/v1/aml/cases/${id}/comments`, { text: "hello" }),
        api.get(`/v1/aml/cases/${id}/timeline`),
        api.post(`/v1/aml/cases/${id}/export`, {}),
      ];
      for (const res of await Promise.all(calls)) expect([id, res.status]).toEqual([id, 404]);
    }
    expect(await db.amlCaseEvent.count({ where: { caseId: theirs.caseId } })).toBe(3);
    expect(await db.amlCaseComment.count({ where: { caseId: theirs.caseId } })).toBe(0);
  });
});

describe("the queue: my cases, status and name", () => {
  it("filters by assignee (an email or none) and by status open, closed or all", async () => {
    const { db, org, api } = await setup();
    await member(db, org.orgId, "ada@example.test", "compliance_officer");
    const a = await flaggedPerson(db, org.orgId);
    const b = await flaggedPerson(db, org.orgId);
    const c = await flaggedPerson(db, org.orgId);
    await api.post(`/v1/aml/cases/${a.caseId}/assign`, { assigneeEmail: "ada@example.test" });
    await api.post(`/v1/aml/cases/${c.caseId}/confirm`, { reason: "true match" });
    const ids = async (qs: string) => (await api.get(`/v1/aml/cases${qs}`)).body.cases.map((x: any) => x.caseId).sort();
    expect(await ids("")).toEqual([a.caseId, b.caseId].sort());
    expect(await ids("?assignee=ada@example.test")).toEqual([a.caseId]);
    expect(await ids("?assignee=none")).toEqual([b.caseId]);
    expect(await ids("?status=closed")).toEqual([c.caseId]);
    expect(await ids("?status=all")).toEqual([a.caseId, b.caseId, c.caseId].sort());
    expect((await api.get("/v1/aml/cases?status=gone")).status).toBe(400);
    // The console's "my cases" is the signed-in member's.
    const ctx = await serviceCtx(db, org.orgId, { type: "member", email: "ada@example.test", role: "compliance_officer" });
    const { createCaller } = await import("../../api/root");
    const mine = await createCaller({ svc: ctx }).aml.queue({ mine: true, status: "open", limit: 50 });
    expect(mine.cases.map((x) => x.caseId)).toEqual([a.caseId]);
  });
});

describe("next case", () => {
  it("hands out the worst-priority, then oldest, unassigned open case; an API key must name the member", async () => {
    const { db, org, api } = await setup();
    await member(db, org.orgId, "ada@example.test", "compliance_officer");
    const oldHigh = await flaggedPerson(db, org.orgId, { pep: true, severity: "high" });
    const newHigh = await flaggedPerson(db, org.orgId, { pep: true, severity: "high" });
    const critical = await flaggedPerson(db, org.orgId, { sanctions: true, severity: "critical" });
    await db.amlCase.update({ where: { id: oldHigh.caseId }, data: { createdAt: new Date(Date.now() - 3_600_000) } });

    const noOne = await api.post("/v1/aml/cases/next", {});
    expect(noOne.status).toBe(400);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.post("/v1/aml/cases/next", { assigneeEmail: "ada@example.test" });
      expect(res.status, res.text).toBe(200);
      expect(res.body.case.assigneeEmail).toBe("ada@example.test");
      order.push(res.body.case.caseId);
    }
    expect(order).toEqual([critical.caseId, oldHigh.caseId, newHigh.caseId]);
    expect((await api.post("/v1/aml/cases/next", { assigneeEmail: "ada@example.test" })).body).toEqual({ case: null });
    const viewer = await member(db, org.orgId, "viewer@example.test", "viewer");
    const refused = await api.post("/v1/aml/cases/next", { assigneeEmail: viewer.email });
    expect([refused.status, refused.body.error.details.reason]).toEqual([409, "assignee_role"]);
    // A console member takes the next case for themselves.
    const more = await flaggedPerson(db, org.orgId);
    const asAda = await serviceCtx(db, org.orgId, { type: "member", email: "ada@example.test", role: "compliance_officer" });
    expect((await takeNextCase(asAda, {})).case).toMatchObject({ caseId: more.caseId, assigneeEmail: "ada@example.test" });
    expect(await db.amlCaseEvent.count({ where: { orgId: org.orgId, kind: "assigned" } })).toBe(4);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.case_assigned" } })).toBe(4);
  });

  it("20 concurrent calls hand out 20 different cases, and the rest stay unassigned", async () => {
    const { db, org, url } = await setup();
    const officers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => member(db, org.orgId, `officer${i}@example.test`, "compliance_officer")),
    );
    const cases: string[] = [];
    for (let i = 0; i < 23; i++) cases.push((await flaggedPerson(db, org.orgId)).caseId);
    const api = client(url, org.apiKey);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.post("/v1/aml/cases/next", { assigneeEmail: officers[i % 4]!.email })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const taken = results.map((r) => r.body.case.caseId as string);
    expect(new Set(taken).size).toBe(20);
    const rows = await db.amlCase.findMany({ where: { orgId: org.orgId }, select: { id: true, assigneeEmail: true } });
    expect(
      rows
        .filter((r) => r.assigneeEmail)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...taken].sort());
    expect(rows.filter((r) => !r.assigneeEmail)).toHaveLength(3);
    // Each case was assigned exactly once.
    expect(await db.amlCaseEvent.count({ where: { orgId: org.orgId, kind: "assigned" } })).toBe(20);
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });
});

describe("four-eyes with an assignee", () => {
  it("the assignee a backend key proposed for cannot approve (403 assignee_proposed); another member can", async () => {
    const { db, org, api } = await setup({ requireSecondApprovalToClearAml: true });
    await member(db, org.orgId, "ada@example.test", "compliance_officer");
    await member(db, org.orgId, "ben@example.test", "compliance_officer");
    const { person: p, caseId } = await flaggedPerson(db, org.orgId);
    await api.post(`/v1/aml/cases/${caseId}/assign`, { assigneeEmail: "ada@example.test" });
    const proposed = await api.post("/v1/aml/clear", { subjectDid: p.did, reason: "Ada checked: a namesake" });
    expect(proposed.body.pendingApproval).toBe(true);
    expect((await db.amlCase.findUniqueOrThrow({ where: { id: caseId } })).proposedAssignee).toBe("member:ada@example.test");

    const ada = await serviceCtx(db, org.orgId, { type: "member", email: "ada@example.test", role: "compliance_officer" });
    const err = await appErrorOf(approveClear(ada, caseId, {}));
    expect([err.code, err.details?.reason]).toEqual(["FORBIDDEN", "assignee_proposed"]);
    expect((await db.person.findUniqueOrThrow({ where: { id: p.id } })).pepFlag).toBe(true);

    const ben = await serviceCtx(db, org.orgId, { type: "member", email: "ben@example.test", role: "compliance_officer" });
    expect(await approveClear(ben, caseId, { notes: "agreed" })).toMatchObject({
      status: "cleared",
      approvedBy: "member:ben@example.test",
    });
    expect(await eventsOf(db, caseId)).toEqual(["opened", "hit_added", "webhook_sent", "assigned", "proposed", "approved"]);
  });
});

describe("comments and the timeline", () => {
  it("a comment is stored with who and when, shown in the timeline, and kept out of the audit log", async () => {
    const { db, org, api, keyActor, url } = await setup({ requireSecondApprovalToClearAml: true });
    await member(db, org.orgId, "ada@example.test", "compliance_officer");
    const { person: p, caseId } = await flaggedPerson(db, org.orgId);
    const account = await db.account.create({
      data: {
        orgId: org.orgId,
        chain: "sandbox",
        name: `acc${randomUUID().slice(0, 8)}`,
        did: `did:antelope:sandbox:${randomUUID()}`,
        lifecycle: "bound",
        ownerPublicKey: "PUB_K1_test",
        activePublicKey: "PUB_K1_test",
      },
    });
    const binding = await db.accountBinding.create({
      data: { orgId: org.orgId, accountId: account.id, personId: p.id, bindingVcHash: "h", credential: {}, issuerKeyId: "k" },
    });

    const secret = "Called the customer: birth date on the passport is 1970-01-02";
    const res = await api.post(`/v1/aml/cases/${caseId}/comments`, { text: secret });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ caseId, author: keyActor, text: secret, commentId: expect.any(String) });
    expect((await api.post(`/v1/aml/cases/${caseId}/comments`, { text: "x".repeat(4001) })).status).toBe(400);
    expect((await api.post(`/v1/aml/cases/${caseId}/comments`, { text: "   " })).status).toBe(400);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "aml.comment_added" } });
    expect(audit.data).toEqual({ caseId, commentId: res.body.commentId, length: secret.length });
    expect(JSON.stringify(await db.auditEntry.findMany({ where: { orgId: org.orgId } }))).not.toContain("passport");

    await api.post(`/v1/aml/cases/${caseId}/assign`, { assigneeEmail: "ada@example.test" });
    await api.post("/v1/aml/clear", { subjectDid: p.did, reason: "namesake" });
    const b = await extraKey(db, org.orgId);
    await client(url, b.raw).post(`/v1/aml/cases/${caseId}/approve-clear`, {});

    const t = await api.get(`/v1/aml/cases/${caseId}/timeline`);
    expect(t.status, t.text).toBe(200);
    expect(t.body.events.map((e: any) => e.kind)).toEqual([
      "opened",
      "hit_added",
      "webhook_sent",
      "comment",
      "assigned",
      "proposed",
      "approved",
    ]);
    expect(t.body.events.map((e: any) => e.seq)).toEqual([...t.body.events.map((e: any) => e.seq)].sort((x: number, y: number) => x - y));
    expect(t.body.events[3]).toMatchObject({ kind: "comment", actor: keyActor, text: secret });
    expect(t.body.events[6]).toMatchObject({ kind: "approved", actor: b.actor });
    expect(t.body.case).toMatchObject({ caseId, status: "cleared", ageing: null });
    expect(t.body.person).toMatchObject({ personDid: p.did, pepFlag: false });
    expect(t.body.accounts).toEqual([{ accountDid: account.did, name: account.name, chain: "sandbox", lifecycle: "bound" }]);
    expect(t.body.bindings).toEqual([{ bindingId: binding.id, accountDid: account.did, createdAt: expect.any(String), revokedAt: null }]);
    expect(t.body.clearing.doesNotChange).toContain("A rejected KYC stays rejected unless the person is verified again.");
    // Closed cases stay open to notes.
    expect((await api.post(`/v1/aml/cases/${caseId}/comments`, { text: "Filed." })).status).toBe(201);
  });

  it("the export is a signed bundle: the checkpoint digests the timeline and verifies with the issuer's public key", async () => {
    const { db, org, api, url } = await setup();
    const { caseId } = await flaggedPerson(db, org.orgId);
    await api.post(`/v1/aml/cases/${caseId}/comments`, { text: "Looked at the list entry." });
    const res = await api.post(`/v1/aml/cases/${caseId}/export`, {});
    expect(res.status, res.text).toBe(200);
    const bundle = res.body;
    expect(bundle).toMatchObject({ format: "bi-aml-case-export/1", organizationId: org.orgId, caseId });
    expect(bundle.timeline.events.map((e: any) => e.kind)).toEqual(["opened", "hit_added", "webhook_sent", "comment", "exported"]);
    expect(bundle.checkpoint).toMatchObject({
      type: "bi-aml-case-checkpoint/1",
      caseId,
      events: 5,
      timelineDigest: sha256Hex(jcs(bundle.timeline)),
    });
    const didDoc = (await client(url).get("/.well-known/did.json")).body;
    const method = didDoc.verificationMethod.find((m: { id: string }) => m.id === bundle.proof.verificationMethod);
    const publicKey = base58.decode(method.publicKeyMultibase.slice(1)).slice(2);
    const verify = (checkpoint: unknown) =>
      ed25519.verify(base58.decode(bundle.proof.signatureMultibase.slice(1)), new TextEncoder().encode(jcs(checkpoint)), publicKey);
    expect(verify(bundle.checkpoint)).toBe(true);
    expect(verify({ ...bundle.checkpoint, events: 4 })).toBe(false);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.case_exported" } })).toBe(1);
  });
});

describe("SLA", () => {
  it("sets a deadline from the defaults, moves open cases when the admin changes the hours, and counts overdue cases", async () => {
    const { db, org, api, url } = await setup();
    const sla = await api.get("/v1/admin/aml-sla");
    expect(sla.body).toEqual({
      hours: { critical: 24, high: 72, medium: 168, low: 336 },
      defaults: { critical: 24, high: 72, medium: 168, low: 336 },
      updatedAt: null,
    });
    const crit = await flaggedPerson(db, org.orgId, { sanctions: true, severity: "critical" });
    const high = await flaggedPerson(db, org.orgId, { pep: true, severity: "high" });
    const row = await db.amlCase.findUniqueOrThrow({ where: { id: crit.caseId } });
    expect(row.dueAt!.getTime() - row.createdAt.getTime()).toBe(24 * 3_600_000);

    // The key needs the admin scope to change them.
    const officerKey = await extraKey(db, org.orgId);
    expect((await client(url, officerKey.raw).put("/v1/admin/aml-sla", { critical: 1 })).status).toBe(403);
    expect((await api.put("/v1/admin/aml-sla", { critical: 0 })).status).toBe(400);
    const set = await api.put("/v1/admin/aml-sla", { critical: 1, high: 2 });
    expect(set.status, set.text).toBe(200);
    expect(set.body.hours).toEqual({ critical: 1, high: 2, medium: 168, low: 336 });
    const moved = await db.amlCase.findUniqueOrThrow({ where: { id: high.caseId } });
    expect(moved.dueAt!.getTime() - moved.createdAt.getTime()).toBe(2 * 3_600_000);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.sla_updated" } })).toBe(1);

    // Ageing: the critical case is past its hour, the high one in the last quarter of its two.
    await db.amlCase.update({
      where: { id: crit.caseId },
      data: { createdAt: new Date(Date.now() - 2 * 3_600_000), dueAt: new Date(Date.now() - 3_600_000) },
    });
    await db.amlCase.update({
      where: { id: high.caseId },
      data: { createdAt: new Date(Date.now() - 7_000_000), dueAt: new Date(Date.now() + 200_000) },
    });
    const fresh = await flaggedPerson(db, org.orgId, { pep: true, severity: "high" });
    const queue = (await api.get("/v1/aml/cases")).body.cases;
    expect(queue.map((c: any) => [c.caseId, c.ageing])).toEqual([
      [crit.caseId, "overdue"],
      [high.caseId, "due_soon"],
      [fresh.caseId, "on_time"],
    ]);
    expect((await api.get("/v1/admin/aml")).body.counts.overdue).toBe(1);
    expect((await api.get("/v1/admin/dashboard")).body.amlCases.overdue).toBe(1);
  });
});
