import { describe, expect, it } from "vitest";
import { openForPerson, personKey } from "@/server/crypto/person-box";
import { verifyChain } from "@/server/services/audit";
import { extraKey, flaggedPerson, person, screeningHit } from "@/server/testing/aml";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { holdPersonLock } from "@/server/testing/interleave";
import { boundAccount } from "@/server/testing/kyc-flow";
import { countRoundTrips } from "@/server/testing/round-trips";

// POST /v1/aml/clear's database cost (docs/performance.md, "Product paths"): one read of the
// person, their key, the organization's four-eyes policy, the open case and the bindings, then the
// case, the flags, the timeline, the credentials' status and the audit entries as ONE grouped
// statement. Counted with every pg client of this process.
describe("POST /v1/aml/clear round trips", () => {
  it("clears a flagged person with a suspended credential in at most 6 round trips, writing everything it did before", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    // Warm: the key cache, the status lists, the chain head, one clear through.
    const warm = await boundAccount(url, api);
    await screeningHit(db, org.orgId, warm.personDid);
    expect((await api.post("/v1/aml/clear", { subjectDid: warm.personDid, reason: "warm" })).status).toBe(200);

    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { personDid, accountDid } = await boundAccount(url, api);
      const hit = await screeningHit(db, org.orgId, personDid);
      const caseId = hit!.caseId;
      const personId = personDid.split(":").pop()!;
      const binding = await db.accountBinding.findFirstOrThrow({ where: { personId }, include: { statusEntries: true } });
      expect(binding).toMatchObject({ status: "suspended", suspendedFor: ["sanctions_flag"] });
      expect(binding.statusEntries.find((e) => e.purpose === "suspension")?.set).toBe(true);
      const reason = `False positive ${i}: different birth date`;

      const { value, count, statements } = await countRoundTrips(() => api.post("/v1/aml/clear", { subjectDid: personDid, reason }));
      expect(value.status, value.text).toBe(200);
      expect(value.body).toEqual({ cleared: true, pendingApproval: false, caseId, subjectDid: personDid });
      counts.push(count);
      // No transaction: the write is one statement.
      expect(statements.filter((s) => /^BEGIN|^COMMIT/.test(s.trim()))).toEqual([]);

      // The case, cleared by this key with its reason sealed under the person's key.
      const c = await db.amlCase.findUniqueOrThrow({ where: { id: caseId } });
      expect(c).toMatchObject({ status: "cleared", proposedBy: expect.stringMatching(/^api_key:/) });
      expect(c.closedAt).toBeInstanceOf(Date);
      expect(c.proposedAt).toEqual(c.closedAt);
      expect(c.proposeReason).toMatch(new RegExp(`^p1\\.${personId}\\.`));
      expect(await openForPerson(db, c.proposeReason!)).toBe(reason);
      // The flags down.
      expect(
        await db.person.findUniqueOrThrow({ where: { id: personId }, select: { pepFlag: true, sanctionsFlag: true, riskScore: true } }),
      ).toEqual({
        pepFlag: false,
        sanctionsFlag: false,
        riskScore: 0,
      });
      // The timeline: cleared (sealed reason, no four-eyes), then the credentials reinstated.
      const events = await db.amlCaseEvent.findMany({ where: { caseId }, orderBy: { seq: "asc" } });
      const cleared = events.filter((e) => e.kind === "cleared");
      expect(cleared).toHaveLength(1);
      expect(cleared[0]!.data).toMatchObject({ fourEyes: false });
      expect(await openForPerson(db, (cleared[0]!.data as { reason: string }).reason)).toBe(reason);
      expect(events.filter((e) => e.kind === "credentials_changed").map((e) => e.data)).toEqual([
        { change: "suspended", bindings: [{ bindingId: binding.id, accountDid, status: "suspended" }] },
        { change: "reinstated", bindings: [{ bindingId: binding.id, accountDid, status: "active" }] },
      ]);
      expect(events.at(-1)!.kind).toBe("credentials_changed");
      expect(events.at(-1)!.seq).toBeGreaterThan(cleared[0]!.seq);
      // The binding active again, its suspension bit cleared in the published list.
      const after = await db.accountBinding.findUniqueOrThrow({ where: { id: binding.id }, include: { statusEntries: true } });
      expect(after).toMatchObject({ status: "active", suspendedFor: [] });
      expect(after.statusChangedAt).toBeInstanceOf(Date);
      expect(after.statusEntries.map((e) => [e.purpose, e.set]).sort()).toEqual([
        ["revocation", false],
        ["suspension", false],
      ]);
      // The webhook and the audit entries: the binding's reinstatement, then the clear.
      const reinstated = await db.outboxEvent.findMany({
        where: { orgId: org.orgId, event: "identity.binding_reinstated", payload: { path: ["accountDid"], equals: accountDid } },
      });
      expect(reinstated.map((e) => e.payload)).toEqual([
        { accountDid, personDid, bindingVcHash: binding.bindingVcHash, reason: "sanctions_flag" },
      ]);
      const entries = await db.auditEntry.findMany({
        where: { orgId: org.orgId, subject: { in: [personDid, accountDid] }, seq: { gt: 0 } },
        orderBy: { seq: "asc" },
      });
      const last = entries.slice(-2);
      expect(last.map((e) => [e.action, e.subject])).toEqual([
        ["identity.binding_reinstated", accountDid],
        ["aml.cleared", personDid],
      ]);
      expect(last[0]!.data).toEqual({ bindingId: binding.id, personDid, reason: "sanctions_flag", suspendedFor: [] });
      expect(last[1]!.data).toMatchObject({
        caseId,
        clearedBy: c.proposedBy,
        fourEyes: false,
        flagsBefore: { pepFlag: false, sanctionsFlag: true, riskScore: 97 },
      });
      expect(await openForPerson(db, (last[1]!.data as { reason: string }).reason)).toBe(reason);

      // The same key clearing the same subject again is answered as before, and writes nothing.
      const again = await api.post("/v1/aml/clear", { subjectDid: personDid, reason });
      expect([again.status, again.body]).toEqual([200, value.body]);
      expect(await db.amlCase.count({ where: { personId } })).toBe(1);
      expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.cleared", subject: personDid } })).toBe(1);
    }
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
    // Two when this process knows the chain head; here each clear follows a screening hit written
    // by a transaction, which moved the head: the grouped statement misses once and reads it again (4).
    const sorted = [...counts].sort((a, b) => a - b);
    expect(sorted[2], counts.join(",")).toBeLessThanOrEqual(6);
  });

  it("the rarer paths: a four-eyes proposal, the answers to a settled clear, and a case opened by hand", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const fourEyes = await createTestOrg({ plan: "institutional" });
    await db.organization.update({ where: { id: fourEyes.orgId }, data: { requireSecondApprovalToClearAml: true } });
    const api = client(url, org.apiKey);
    const other = client(url, (await extraKey(db, org.orgId)).raw);
    const checker = client(url, fourEyes.apiKey);
    // Warm: both organizations' keys signed in, each chain head known.
    const warm = await flaggedPerson(db, org.orgId);
    expect((await api.post("/v1/aml/clear", { subjectDid: warm.person.did, reason: "warm" })).status).toBe(200);
    expect((await other.get("/v1/aml/cases")).status).toBe(200);
    const warmPending = await flaggedPerson(db, fourEyes.orgId);
    expect((await checker.post("/v1/aml/clear", { subjectDid: warmPending.person.did, reason: "warm" })).body.pendingApproval).toBe(true);

    const counts: Record<"late" | "again" | "proposed" | "waiting" | "byHand", number[]> = {
      late: [],
      again: [],
      proposed: [],
      waiting: [],
      byHand: [],
    };
    for (let i = 0; i < 3; i++) {
      // Another key's clear within the window, and this key's own again: answered from the one read.
      const settled = await flaggedPerson(db, org.orgId);
      const first = await api.post("/v1/aml/clear", { subjectDid: settled.person.did, reason: "namesake" });
      const late = await countRoundTrips(() => other.post("/v1/aml/clear", { subjectDid: settled.person.did, reason: "late" }));
      expect([late.value.status, late.value.body.error?.details?.reason]).toEqual([409, "case_closed"]);
      const again = await countRoundTrips(() => api.post("/v1/aml/clear", { subjectDid: settled.person.did, reason: "namesake" }));
      expect([again.value.status, again.value.body]).toEqual([200, first.body]);
      expect(await db.amlCase.count({ where: { personId: settled.person.id } })).toBe(1);

      // Four-eyes: the proposal is one grouped statement too; a proposal already waiting is answered from the read.
      const flagged = await flaggedPerson(db, fourEyes.orgId);
      const reason = `Namesake ${i}, other birth date`;
      const proposed = await countRoundTrips(() => checker.post("/v1/aml/clear", { subjectDid: flagged.person.did, reason }));
      expect(proposed.value.body).toEqual({
        cleared: false,
        pendingApproval: true,
        caseId: flagged.caseId,
        subjectDid: flagged.person.did,
      });
      expect(proposed.statements.filter((s) => /^BEGIN|^COMMIT/.test(s.trim()))).toEqual([]);
      const pending = await db.amlCase.findUniqueOrThrow({ where: { id: flagged.caseId } });
      expect(pending).toMatchObject({ status: "pending_approval", proposedBy: expect.stringMatching(/^api_key:/), closedAt: null });
      expect(await openForPerson(db, pending.proposeReason!)).toBe(reason);
      expect((await db.person.findUniqueOrThrow({ where: { id: flagged.person.id } })).pepFlag).toBe(true);
      expect((await db.amlCaseEvent.findMany({ where: { caseId: flagged.caseId }, orderBy: { seq: "asc" } })).at(-1)!.kind).toBe(
        "proposed",
      );
      const entry = await db.auditEntry.findFirstOrThrow({
        where: { orgId: fourEyes.orgId, action: "aml.clear_proposed", subject: flagged.person.did },
      });
      expect(await openForPerson(db, (entry.data as { reason: string }).reason)).toBe(reason);
      const waiting = await countRoundTrips(() => checker.post("/v1/aml/clear", { subjectDid: flagged.person.did, reason: "again" }));
      expect([waiting.value.status, waiting.value.body]).toEqual([200, proposed.value.body]);

      // No open case and none closed lately: a case opened by hand, in the same one statement.
      const unflagged = await person(db, org.orgId, { pepFlag: true, riskScore: 40 });
      const byHand = await countRoundTrips(() => api.post("/v1/aml/clear", { subjectDid: unflagged.did, reason: "Checked by hand" }));
      expect(byHand.value.body).toMatchObject({ cleared: true, pendingApproval: false, subjectDid: unflagged.did });
      expect(byHand.statements.filter((s) => /^BEGIN|^COMMIT/.test(s.trim()))).toEqual([]);
      const opened = await db.amlCase.findFirstOrThrow({ where: { personId: unflagged.id } });
      expect(opened).toMatchObject({
        id: byHand.value.body.caseId,
        status: "cleared",
        priority: "high",
        openedBy: expect.stringMatching(/^api_key:/),
      });
      expect(opened.dueAt!.getTime() - opened.createdAt.getTime()).toBe(72 * 3_600_000);
      expect(await openForPerson(db, opened.reason)).toBe("Opened by hand to clear: Checked by hand");
      expect((await db.amlCaseEvent.findMany({ where: { caseId: opened.id }, orderBy: { seq: "asc" } })).map((e) => e.kind)).toEqual([
        "opened",
        "cleared",
      ]);
      expect(
        (await db.auditEntry.findMany({ where: { orgId: org.orgId, subject: unflagged.did }, orderBy: { seq: "asc" } })).map(
          (e) => e.action,
        ),
      ).toEqual(["aml.case_opened", "aml.cleared"]);
      expect((await db.person.findUniqueOrThrow({ where: { id: unflagged.id } })).pepFlag).toBe(false);

      counts.late.push(late.count);
      counts.again.push(again.count);
      counts.proposed.push(proposed.count);
      counts.waiting.push(waiting.count);
      counts.byHand.push(byHand.count);
    }
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
    expect((await verifyChain(db, fourEyes.orgId)).valid).toBe(true);
    // Medians of three: an answer from the read is one round trip; a write is the read and one grouped
    // statement, which reads the head again when another writer (here the test's screening hits) moved it.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    const text = JSON.stringify(counts);
    expect([median(counts.late), median(counts.again), median(counts.waiting)], text).toEqual([1, 1, 1]);
    expect(median(counts.proposed), text).toBeLessThanOrEqual(4);
    expect(median(counts.byHand), text).toBeLessThanOrEqual(4);
  });

  it("two identities clearing a subject with no case at once, both having read none: one case opened by hand, the other 409 case_closed", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const other = client(url, (await extraKey(db, org.orgId)).raw);
    for (let i = 0; i < 3; i++) {
      const p = await person(db, org.orgId, { sanctionsFlag: true, riskScore: 90 });
      await personKey(db, p); // a key already there: the person's row alone keeps the second case out
      // Both reads wait for the person's row, so both find no case; their writes then race.
      const lock = await holdPersonLock(p.id);
      const pending = [api, other].map((c) => c.post("/v1/aml/clear", { subjectDid: p.did, reason: "namesake" }));
      await lock.waitForWaiters(2);
      await lock.release();
      const answers = await Promise.all(pending);
      expect(answers.map((a) => a.status).sort(), answers.map((a) => a.text).join(" ")).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)!.body.error.details.reason).toBe("case_closed");
      const cases = await db.amlCase.findMany({ where: { personId: p.id } });
      expect(cases.map((c) => [c.id, c.status])).toEqual([[answers.find((a) => a.status === 200)!.body.caseId, "cleared"]]);
      expect(await db.auditEntry.count({ where: { orgId: org.orgId, subject: p.did, action: "aml.case_opened" } })).toBe(1);
      expect((await db.person.findUniqueOrThrow({ where: { id: p.id } })).sanctionsFlag).toBe(false);
    }
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });
});
