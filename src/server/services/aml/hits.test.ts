import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Prisma } from "../../db/client";
import { extraKey, person, serviceCtx } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { indexNodes } from "../../testing/query-plan";
import { appErrorOf } from "../../testing/rejection";
import type { ScreeningOutcome } from "./aml.schema";
import { openCaseOf } from "./case-records";
import { approveClear, proposeClear, recordScreeningHit } from "./cases";

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg();
  return { url, db, org, api: client(url, org.apiKey) };
}

const hit = (db: any, orgId: string, p: { id: string; did: string }, outcome: Partial<ScreeningOutcome>) =>
  db.$transaction((tx: any) =>
    recordScreeningHit(tx, {
      orgId,
      personId: p.id,
      subjectDid: p.did,
      outcome: { sanctions: false, pep: false, severity: null, score: 0, resultId: null, ...outcome },
      actor: { type: "system", label: "kyc-approval" },
    }),
  );

describe("recordScreeningHit (called by KYC approval inside its transaction)", () => {
  it("a PEP hit raises pepFlag and riskScore, opens a high case linked to the screening result, emits aml.sanctions_hit and audits it", async () => {
    const { db, org } = await setup();
    const p = await person(db, org.orgId);
    const out = await hit(db, org.orgId, p, { pep: true, severity: "medium", score: 64, resultId: "res-pep-1" });
    expect(out).toEqual({ caseId: expect.any(String), priority: "high", opened: true, proposalWithdrawn: false });
    expect(await db.person.findUniqueOrThrow({ where: { id: p.id } })).toMatchObject({
      pepFlag: true,
      sanctionsFlag: false,
      riskScore: 64,
    });
    expect(await db.amlCase.findUniqueOrThrow({ where: { id: out.caseId } })).toMatchObject({
      status: "open",
      priority: "high",
      subjectDid: p.did,
      personId: p.id,
      openedBy: "system:kyc-approval",
    });
    expect(
      await db.amlCaseHit.findMany({ where: { caseId: out.caseId }, select: { resultId: true, severity: true, pep: true, score: true } }),
    ).toEqual([{ resultId: "res-pep-1", severity: "high", pep: true, score: 64 }]);
    const events = await db.outboxEvent.findMany({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } });
    expect(events.map((e: any) => e.payload)).toEqual([{ personDid: p.did, severity: "high" }]);
    const audit = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "aml.sanctions_hit" } });
    expect(audit).toMatchObject({ actor: "system:kyc-approval", subject: p.did });
    expect(audit.data).toMatchObject({
      caseId: out.caseId,
      opened: true,
      severity: "high",
      pep: true,
      sanctions: false,
      score: 64,
      resultId: "res-pep-1",
    });
  });

  it("a sanctions hit on a person with an open PEP case escalates that case to critical instead of opening another", async () => {
    const { db, org } = await setup();
    const p = await person(db, org.orgId);
    const first = await hit(db, org.orgId, p, { pep: true, score: 60 });
    const second = await hit(db, org.orgId, p, { sanctions: true, severity: "critical", score: 97, resultId: "res-ofac-9" });
    expect(second).toEqual({ caseId: first.caseId, priority: "critical", opened: false, proposalWithdrawn: false });
    expect(await db.amlCase.count({ where: { personId: p.id } })).toBe(1);
    expect(await db.person.findUniqueOrThrow({ where: { id: p.id } })).toMatchObject({ pepFlag: true, sanctionsFlag: true, riskScore: 97 });
    // A weaker hit later never lowers the priority or the score.
    const third = await hit(db, org.orgId, p, { pep: true, score: 10 });
    expect(third.priority).toBe("critical");
    expect((await db.person.findUniqueOrThrow({ where: { id: p.id } })).riskScore).toBe(97);
    expect(await db.amlCaseHit.count({ where: { caseId: first.caseId } })).toBe(3);
    expect(
      (await db.outboxEvent.findMany({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } }))
        .map((e: any) => e.payload.severity)
        .sort(),
    ).toEqual(["critical", "high", "high"]);
  });

  it("a new hit on a case awaiting approval withdraws the proposal, so nobody approves a clear made without that evidence", async () => {
    const { db, org, url } = await setup();
    await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
    const p = await person(db, org.orgId);
    const { caseId } = await hit(db, org.orgId, p, { pep: true, score: 50 });
    expect((await client(url, org.apiKey).post("/v1/aml/clear", { subjectDid: p.did, reason: "namesake" })).body.pendingApproval).toBe(
      true,
    );
    const again = await hit(db, org.orgId, p, { sanctions: true, score: 90 });
    expect(again).toMatchObject({ caseId, priority: "critical", proposalWithdrawn: true });
    expect(await db.amlCase.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ status: "open", proposedBy: null });
    expect((await db.amlCaseEvent.findMany({ where: { caseId }, orderBy: { seq: "asc" } })).map((e: any) => e.kind)).toEqual([
      "opened",
      "hit_added",
      "webhook_sent",
      "proposed",
      "hit_added",
      "reopened",
      "webhook_sent",
    ]);
    const b = await extraKey(db, org.orgId);
    const approve = await client(url, b.raw).post(`/v1/aml/cases/${caseId}/approve-clear`, {});
    expect([approve.status, approve.body.error.details.reason]).toEqual([409, "not_awaiting_approval"]);
    expect((await db.person.findUniqueOrThrow({ where: { id: p.id } })).sanctionsFlag).toBe(true);
  });

  it("writes nothing for an outcome that flags nothing, and nothing at all when the caller's transaction rolls back", async () => {
    const { db, org } = await setup();
    const p = await person(db, org.orgId);
    expect(await hit(db, org.orgId, p, { score: 12 })).toBeNull();
    await expect(
      db.$transaction(async (tx) => {
        await recordScreeningHit(tx, {
          orgId: org.orgId,
          personId: p.id,
          subjectDid: p.did,
          outcome: { sanctions: true, pep: false, severity: "critical", score: 99 },
          actor: "system:test",
        });
        throw new Error("KYC approval failed later");
      }),
    ).rejects.toThrow("KYC approval failed later");
    expect(await db.person.findUniqueOrThrow({ where: { id: p.id } })).toMatchObject({
      pepFlag: false,
      sanctionsFlag: false,
      riskScore: 0,
    });
    expect(await db.amlCase.count({ where: { orgId: org.orgId } })).toBe(0);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } })).toBe(0);
  });
});

describe("service functions take the actor from the context (console door)", () => {
  it("a console member approves an API key's proposal; the same member cannot approve their own", async () => {
    const { db, org } = await setup();
    await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
    const key = await db.apiKey.findFirstOrThrow({ where: { orgId: org.orgId } });
    const asKey = await serviceCtx(db, org.orgId, { type: "api_key", id: key.id, label: key.name });
    const asMember = await serviceCtx(db, org.orgId, { type: "member", email: "officer@example.com", role: "compliance_officer" });

    const p1 = await person(db, org.orgId);
    const c1 = (await hit(db, org.orgId, p1, { pep: true, score: 55 })).caseId;
    expect(await proposeClear(asKey, { subjectDid: p1.did, reason: "namesake" })).toMatchObject({ pendingApproval: true, caseId: c1 });
    expect(await approveClear(asMember, c1, {})).toMatchObject({
      status: "cleared",
      proposedBy: `api_key:${key.id}`,
      approvedBy: "member:officer@example.com",
    });

    const p2 = await person(db, org.orgId);
    const c2 = (await hit(db, org.orgId, p2, { pep: true, score: 55 })).caseId;
    await proposeClear(asMember, { subjectDid: p2.did, reason: "namesake" });
    const err = await appErrorOf(approveClear(asMember, c2, {}));
    expect([err.code, err.details?.reason]).toEqual(["FORBIDDEN", "same_approver"]);
    expect((await approveClear(asKey, c2, { notes: "ok" })).approvedBy).toBe(`api_key:${key.id}`);
  });
});

describe("scopes", () => {
  it("the AML calls need compliance_export", async () => {
    const { db, org, url } = await setup();
    const reader = await extraKey(db, org.orgId, "reader", ["read", "admin"]);
    const p = await person(db, org.orgId, { pepFlag: true });
    const res = await client(url, reader.raw).post("/v1/aml/clear", { subjectDid: p.did, reason: "not allowed" });
    expect([res.status, res.body.error.details.reason]).toEqual([403, "missing_scope"]);
    expect((await client(url, reader.raw).get("/v1/aml/cases")).status).toBe(403);
  });
});

describe("a person's open case", () => {
  it("is found through the (orgId, personId) index, without reading the organization's other open cases", async () => {
    const { db, org } = await setup();
    // A busy queue: 400 other people's open cases, then this person's, opened by a hit.
    const others = Array.from({ length: 400 }, () => randomUUID());
    await db.$executeRaw`
      INSERT INTO aml_cases (id, "orgId", "subjectDid", "personId", status, priority, reason, "openedBy", "updatedAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, 'did:test:' || p, p, 'open', 'high', 'pep_hit', 'system:test', now()
      FROM unnest(${others}::uuid[]) AS p`;
    const p = await person(db, org.orgId);
    const out = await hit(db, org.orgId, p, { pep: true, severity: "medium", score: 64, resultId: "res-index" });
    expect((await openCaseOf(db, org.orgId, p.id))?.id).toBe(out.caseId);
    await db.$executeRawUnsafe("ANALYZE aml_cases");
    // The lookup openCaseOf makes (KYC approval, bind confirm, AML clear; a re-screen's hits read the same).
    const { nodes: byPerson, plan } = await indexNodes(
      db,
      Prisma.sql`SELECT id FROM aml_cases WHERE "orgId" = ${org.orgId}::uuid AND "personId" = ${p.id}::uuid
        AND status IN ('open', 'pending_approval') ORDER BY "createdAt" LIMIT 1`,
      "aml_cases_orgId_personId_idx",
    );
    expect(byPerson, plan).toHaveLength(1);
    expect(byPerson[0]!["Actual Rows"]).toBe(1);
    expect(byPerson[0]!["Rows Removed by Filter"] ?? 0).toBe(0);
  });
});
