import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openPersonal } from "@/server/crypto/person-box";
import type { Db, Tx } from "@/server/db/client";
import { SANDBOX_IDENTITIES, sandboxCallback } from "@/server/providers/kyc/sandbox";
import { lockAmlSubject, recordKeyChange, recordScreeningHit } from "@/server/services/aml";
import { appendAudit, verifyChain } from "@/server/services/audit";
import { openSubject } from "@/server/services/screening/monitoring-subjects";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { untilStatementWaits } from "@/server/testing/interleave";
import { applicantOf, approvedPerson } from "@/server/testing/kyc-flow";
import { countRoundTrips } from "@/server/testing/round-trips";
import { applicantIdHash } from "./review";
import { humanHashLookups, humanTexts, pairwiseIdOf } from "./unique-person";

// A KYC review arriving (docs/performance.md, "Product paths"): the sandbox's hosted completion
// delivers a signed review; it reads what it needs in one statement, screening's lists in one
// more, and writes the provider event, session, person, identity hashes, screening result and
// subject, event and audit entry as ONE grouped statement; a review raising a screening hit reads
// the person's open case and the matched entries in one more, and writes the flags, the case, the
// hit and its evidence, the timeline, event and entry in that same statement. Counted with every pg
// client of this process (the hosted page's own read of the session and of the person after are two of them).

type Api = ReturnType<typeof client>;
type Outcome = "approved" | "pep" | "sanctions" | "rejected" | "retry";

const hosted = (url: string, applicantId: string, outcome: Outcome, documentNumber?: string) =>
  call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantId}`, { body: { outcome, ...(documentNumber ? { documentNumber } : {}) } });

async function started(api: Api) {
  const res = await api.post("/v1/kyc/start", {});
  expect(res.status, res.text).toBe(200);
  const personDid = res.body.personDid as string;
  return { personDid, personId: personDid.split(":").pop()!, applicantId: applicantOf(res.body.verificationUrl) };
}

/**
 * A review arriving while `hold` (in the test's own transaction) holds the person's row: the
 * transaction commits only once the review's grouped statement waits for that row (the statement's
 * text as pg_stat_activity shows it is cut before its case write), so the review always runs second.
 */
async function reviewWhileHolding(db: Db, url: string, applicantId: string, outcome: Outcome, hold: (tx: Tx) => Promise<void>) {
  let review: ReturnType<typeof hosted> | undefined;
  await db.$transaction(
    async (tx) => {
      await hold(tx);
      review = hosted(url, applicantId, outcome);
      await untilStatementWaits(db, ["audit_heads"]);
    },
    { timeout: 20_000 },
  );
  return review!;
}

describe("a KYC review arriving: round trips", () => {
  it("costs at most 8 database round trips and writes everything it did before; a redelivery writes nothing more", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await approvedPerson(url, api); // warm: the sandbox lists, the key cache, the chain head
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { personDid, personId, applicantId } = await started(api);
      const { value, count, statements } = await countRoundTrips(() => hosted(url, applicantId, "approved"));
      expect(value.status, value.text).toBe(200);
      expect(value.body.status).toBe("approved");
      counts.push(count);
      // No transaction: the write is one statement.
      expect(statements.filter((s) => /^BEGIN|^COMMIT/.test(s.trim()))).toEqual([]);

      const identity = SANDBOX_IDENTITIES.approved;
      const person = await db.person.findUniqueOrThrow({ where: { id: personId } });
      expect(person).toMatchObject({
        kycStatus: "approved",
        kycProvider: "sandbox",
        kycLevel: "basic-kyc",
        country: "GH",
        applicantIdHash: applicantIdHash({ ...identity, country: "GH" }, personId),
        pepFlag: false,
        sanctionsFlag: false,
        humanId: null,
        duplicateOf: null,
        duplicatePersonIds: [],
        pairwiseId: pairwiseIdOf(org.orgId, personId),
      });
      // The review's own time (the sandbox stamps it when it delivers), as a UTC instant.
      expect(Math.abs(person.reviewedAt!.getTime() - Date.now())).toBeLessThan(120_000);
      const key = await db.personKey.findUniqueOrThrow({ where: { personId } });
      expect(openPersonal(person.providerApplicantId!, key.keySealed)).toBe(applicantId);
      // The name and birth date's human id, under every key, names the person.
      const hashes = humanHashLookups(humanTexts(identity, personId));
      const stored = await db.identityHash.findMany({ where: { OR: hashes.map((h) => ({ keyId: h.keyId, hash: h.hash })) } });
      expect(stored).toHaveLength(hashes.length);
      expect(new Set(stored.map((h) => h.humanId))).toEqual(new Set([person.nameBirthHumanId]));
      expect(stored.every((h) => h.kind === "name_birth")).toBe(true);

      const session = await db.kycSession.findFirstOrThrow({ where: { personId } });
      expect(session.status).toBe("approved");
      expect(session.review).toMatchObject({ status: "approved", labels: [], pep: false, sanctions: false });

      const results = await db.screeningResult.findMany({ where: { orgId: org.orgId, subjectRef: personDid } });
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ provider: "screening-lists", sanctionsHit: false, pepHit: false, subjectType: "person" });
      expect((results[0]!.detail as { listVersions: unknown[] }).listVersions.length).toBeGreaterThan(0);
      const subject = await db.screeningSubject.findUniqueOrThrow({ where: { personId } });
      expect(openSubject(subject.querySealed, key.keySealed)).toEqual({
        name: identity.fullName,
        birthDate: identity.birthDate,
        country: "GH",
      });

      const events = await db.outboxEvent.findMany({
        where: { orgId: org.orgId, event: "kyc.approved", payload: { path: ["personDid"], equals: personDid } },
      });
      expect(events.map((e) => e.payload)).toEqual([{ personDid, level: "basic-kyc" }]);
      const entries = await db.auditEntry.findMany({ where: { orgId: org.orgId, subject: personDid, action: { startsWith: "kyc." } } });
      expect(entries.map((e) => e.action).sort()).toEqual(["kyc.approved", "kyc.started"]);
      expect(entries.find((e) => e.action === "kyc.approved")).toMatchObject({
        actor: "system:kyc-provider:sandbox",
        data: { provider: "sandbox", level: "basic-kyc", sessionId: session.id, country: "GH", previousStatus: "pending", labels: [] },
      });
    }
    const sorted = [...counts].sort((a, b) => a - b);
    // A review now and then reads the chain head again (another writer moved it).
    expect(sorted[2], counts.join(",")).toBeLessThanOrEqual(8);
    expect(sorted[4], counts.join(",")).toBeLessThanOrEqual(10);

    // A redelivered event: answered duplicate, nothing written.
    const again = await started(api);
    const cb = sandboxCallback({ applicantId: again.applicantId, externalId: again.personId, outcome: "approved" });
    const deliver = () =>
      call(url, "POST", "/v1/kyc/callbacks/sandbox", { rawBody: cb.rawBody.toString(), headers: Object.fromEntries(cb.headers) });
    expect((await deliver()).body).toEqual({ received: true, duplicate: false });
    const before = {
      audit: await db.auditEntry.count({ where: { orgId: org.orgId } }),
      events: await db.outboxEvent.count({ where: { orgId: org.orgId } }),
      results: await db.screeningResult.count({ where: { orgId: org.orgId } }),
      person: await db.person.findUniqueOrThrow({ where: { id: again.personId } }),
    };
    const { value: dup, count: dupCount } = await countRoundTrips(deliver);
    expect(dup.body).toEqual({ received: true, duplicate: true });
    expect(dupCount).toBe(1);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId } })).toBe(before.audit);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId } })).toBe(before.events);
    expect(await db.screeningResult.count({ where: { orgId: org.orgId } })).toBe(before.results);
    expect(await db.person.findUniqueOrThrow({ where: { id: again.personId } })).toEqual(before.person);
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("applies concurrent deliveries in turn: one event once, and of two decisions the first (the other finds the person decided)", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await approvedPerson(url, api);
    // The same event four times at once: applied once, three duplicates.
    const one = await started(api);
    const cb = sandboxCallback({ applicantId: one.applicantId, externalId: one.personId, outcome: "approved" });
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        call(url, "POST", "/v1/kyc/callbacks/sandbox", { rawBody: cb.rawBody.toString(), headers: Object.fromEntries(cb.headers) }),
      ),
    );
    expect(answers.map((a) => a.body.duplicate).sort()).toEqual([false, true, true, true]);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "kyc.approved", subject: one.personDid } })).toBe(1);
    expect(
      await db.outboxEvent.count({
        where: { orgId: org.orgId, event: "kyc.approved", payload: { path: ["personDid"], equals: one.personDid } },
      }),
    ).toBe(1);
    expect(await db.screeningResult.count({ where: { orgId: org.orgId, subjectRef: one.personDid } })).toBe(1);

    // An approval and a rejection at once: the person takes one final status, audited once.
    for (let i = 0; i < 3; i++) {
      const p = await started(api);
      const both = await Promise.all((["approved", "rejected"] as const).map((outcome) => hosted(url, p.applicantId, outcome)));
      expect(both.map((r) => r.status)).toEqual([200, 200]);
      const person = await db.person.findUniqueOrThrow({ where: { id: p.personId } });
      const decisions = await db.auditEntry.findMany({
        where: { orgId: org.orgId, subject: p.personDid, action: { in: ["kyc.approved", "kyc.rejected"] } },
      });
      expect(decisions.map((e) => e.action)).toEqual([`kyc.${person.kycStatus}`]);
      expect(decisions[0]!.data).toMatchObject({ previousStatus: "pending" });
      expect(
        await db.outboxEvent.count({
          where: { orgId: org.orgId, event: "kyc.approved", payload: { path: ["personDid"], equals: p.personDid } },
        }),
      ).toBe(person.kycStatus === "approved" ? 1 : 0);
    }
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("waits for a transaction holding the person and then appending (the lock order of the transaction path), without deadlock", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await approvedPerson(url, api);
    const p = await started(api);
    let review: Promise<Awaited<ReturnType<typeof hosted>>> | undefined;
    await db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM people WHERE id = ${p.personId}::uuid FOR UPDATE`;
        review = hosted(url, p.applicantId, "approved");
        // Until the review's statement waits for the person's row (had it moved the chain head first, the append below would deadlock).
        await untilStatementWaits(db, ["UPDATE people SET", "audit_heads"]);
        await appendAudit(tx, { orgId: org.orgId, actor: "system:test" }, { action: "test.person_locked", subject: p.personDid });
      },
      { timeout: 20_000 },
    );
    const res = await review!;
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe("approved");
    const entries = await db.auditEntry.findMany({ where: { orgId: org.orgId, subject: p.personDid }, orderBy: { seq: "asc" } });
    expect(entries.map((e) => e.action)).toEqual(["kyc.started", "test.person_locked", "kyc.approved"]);
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("records a duplicate person (the same document) with its event and audit entry in the same statement", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    expect((await api.put("/v1/admin/duplicate-policy", { duplicatePersonPolicy: "refuse" })).status).toBe(200);
    await approvedPerson(url, api);
    const passport = `P${randomBytes(5).toString("hex").toUpperCase()}`;
    const first = await started(api);
    expect((await hosted(url, first.applicantId, "approved", passport)).status).toBe(200);
    const second = await started(api);
    const { value, count, statements } = await countRoundTrips(() => hosted(url, second.applicantId, "approved", passport));
    expect(value.status, value.text).toBe(200);
    expect(count, statements.join("\n")).toBeLessThanOrEqual(10);
    expect(statements.filter((s) => /^BEGIN|^COMMIT/.test(s.trim()))).toEqual([]);

    const [a, b] = await Promise.all([first, second].map((p) => db.person.findUniqueOrThrow({ where: { id: p.personId } })));
    expect(a!.humanId).toBeTruthy();
    expect(b).toMatchObject({
      kycStatus: "approved",
      humanId: a!.humanId,
      pairwiseId: a!.pairwiseId,
      duplicateOf: "document",
      duplicatePersonIds: [first.personId],
    });
    expect(a!.duplicateOf).toBeNull();
    const event = await db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "kyc.duplicate_person" } });
    expect(event.payload).toEqual({
      personDid: second.personDid,
      match: "document",
      otherPersonDids: [first.personDid],
      createRefused: true,
    });
    // Chained right after the approval's entry, in the same commit.
    const approvedEntry = await db.auditEntry.findFirstOrThrow({
      where: { orgId: org.orgId, action: "kyc.approved", subject: second.personDid },
    });
    const duplicateEntry = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "kyc.duplicate_person" } });
    expect(duplicateEntry).toMatchObject({ seq: approvedEntry.seq + 1, actor: "system:unique-person", subject: second.personDid });
    expect(duplicateEntry.data).toEqual({ match: "document", otherPersonDids: [first.personDid], createRefused: true });
    const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(second.personDid)}`);
    expect(status.body).toMatchObject({ duplicateOf: "document", createRefused: true });
    expect(status.body.createToken).toBeUndefined();
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("a screening hit (PEP on the lists) or the provider's sanctions finding: at most 8 round trips, one statement, its flags, case, evidence, events and entries", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await approvedPerson(url, api);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const reviewed: { p: Awaited<ReturnType<typeof started>>; outcome: "pep" | "sanctions" }[] = [];
    for (const outcome of ["pep", "sanctions"] as const) {
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) {
        const p = await started(api);
        const { value, count, statements } = await countRoundTrips(() => hosted(url, p.applicantId, outcome));
        expect(value.status, value.text).toBe(200);
        expect(value.body.status).toBe(outcome === "pep" ? "approved" : "rejected");
        // No transaction: the review and its hit are one statement.
        expect(statements.filter((s) => /^BEGIN|^COMMIT/.test(s.trim()))).toEqual([]);
        counts.push(count);
        reviewed.push({ p, outcome });
      }
      expect(median(counts), `${outcome}: ${counts.join(", ")}`).toBeLessThanOrEqual(8);
    }

    for (const { p, outcome } of reviewed) {
      const flags =
        outcome === "pep"
          ? { pepFlag: true, sanctionsFlag: false, priority: "high", kyc: "kyc.approved" }
          : { pepFlag: false, sanctionsFlag: true, priority: "critical", kyc: "kyc.rejected" };
      const person = await db.person.findUniqueOrThrow({ where: { id: p.personId } });
      expect(person).toMatchObject({ pepFlag: flags.pepFlag, sanctionsFlag: flags.sanctionsFlag });
      expect(person.riskScore).toBeGreaterThan(0);
      const cases = await db.amlCase.findMany({ where: { orgId: org.orgId, personId: p.personId } });
      expect(cases).toHaveLength(1);
      expect(cases[0]).toMatchObject({
        status: "open",
        priority: flags.priority,
        subjectDid: p.personDid,
        openedBy: "system:kyc-provider:sandbox",
      });
      expect(cases[0]!.dueAt!.getTime()).toBeGreaterThan(cases[0]!.createdAt.getTime());
      const hits = await db.amlCaseHit.findMany({ where: { caseId: cases[0]!.id } });
      expect(hits).toHaveLength(1);
      expect(hits[0]).toMatchObject({
        severity: flags.priority,
        pep: flags.pepFlag,
        sanctions: flags.sanctionsFlag,
        score: person.riskScore,
      });
      // The evidence: the verified subject (sealed under the person's key), the matched entries or the provider's finding.
      const evidence = hits[0]!.evidence as {
        subject: { sealed: string | null; source: string };
        matches: { listVersionHash: string | null }[];
        provider: unknown;
      };
      expect(evidence.subject.source).toBe("kyc_provider");
      const key = await db.personKey.findUniqueOrThrow({ where: { personId: p.personId } });
      expect(JSON.parse(openPersonal(evidence.subject.sealed!, key.keySealed)!).name).toBe(SANDBOX_IDENTITIES[outcome].fullName);
      if (outcome === "pep") {
        const result = await db.screeningResult.findFirstOrThrow({ where: { orgId: org.orgId, subjectRef: p.personDid } });
        expect(result.pepHit).toBe(true);
        expect(hits[0]!.resultId).toBe(result.id);
        expect(evidence.matches.length).toBeGreaterThan(0);
        expect(evidence.matches.every((m) => !!m.listVersionHash)).toBe(true);
        expect(await db.screeningSubject.count({ where: { personId: p.personId } })).toBe(1);
      } else {
        expect(evidence.provider).toMatchObject({ name: "sandbox", sanctions: true });
      }
      const kinds = (await db.amlCaseEvent.findMany({ where: { caseId: cases[0]!.id }, orderBy: { seq: "asc" } })).map((e) => e.kind);
      expect(kinds).toEqual(["opened", "hit_added", "webhook_sent"]);
      const events = await db.outboxEvent.findMany({
        where: { orgId: org.orgId, payload: { path: ["personDid"], equals: p.personDid } },
        select: { event: true },
      });
      expect(events.filter((e) => e.event === "aml.sanctions_hit")).toHaveLength(1);
      expect(events.filter((e) => e.event === "kyc.approved")).toHaveLength(outcome === "pep" ? 1 : 0);
      // The review's entry, then the hit's, as the transaction wrote them.
      const entries = await db.auditEntry.findMany({ where: { orgId: org.orgId, subject: p.personDid }, orderBy: { seq: "asc" } });
      expect(entries.map((e) => e.action)).toEqual(["kyc.started", flags.kyc, "aml.sanctions_hit"]);
      expect(entries[2]!.seq).toBe(entries[1]!.seq + 1);
      expect(entries[2]!.data).toMatchObject({ caseId: cases[0]!.id, opened: true, priority: flags.priority });
    }
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("a review's hit and an ongoing screening hit on one person at once: one open case, escalated, with both hits and both flags", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await approvedPerson(url, api);
    const p = await started(api);
    // An ongoing screening hit (PEP) opens a case and holds the person while the review (the provider's sanctions finding) arrives.
    const res = await reviewWhileHolding(db, url, p.applicantId, "sanctions", async (tx) => {
      const ongoing = await recordScreeningHit(tx, {
        orgId: org.orgId,
        personId: p.personId,
        subjectDid: p.personDid,
        outcome: { sanctions: false, pep: true, severity: "medium", score: 50, resultId: null },
        actor: "system:screening-monitor",
      });
      expect(ongoing?.opened).toBe(true);
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe("rejected");

    const cases = await db.amlCase.findMany({ where: { orgId: org.orgId, personId: p.personId } });
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({ status: "open", priority: "critical", openedBy: "system:screening-monitor" });
    // Escalated to critical: the deadline is brought forward to the critical hours.
    expect(cases[0]!.dueAt!.getTime() - cases[0]!.createdAt.getTime()).toBe(24 * 3_600_000);
    const hits = await db.amlCaseHit.findMany({ where: { caseId: cases[0]!.id }, orderBy: { createdAt: "asc" } });
    expect(hits.map((h) => h.severity).sort()).toEqual(["critical", "high"]);
    const kinds = (await db.amlCaseEvent.findMany({ where: { caseId: cases[0]!.id }, orderBy: { seq: "asc" } })).map((e) => e.kind);
    expect(kinds).toEqual(["opened", "hit_added", "webhook_sent", "hit_added", "webhook_sent"]);
    const person = await db.person.findUniqueOrThrow({ where: { id: p.personId } });
    // The ongoing hit's flag is kept, the review's added.
    expect(person).toMatchObject({ kycStatus: "rejected", pepFlag: true, sanctionsFlag: true, riskScore: 100 });
    const entries = await db.auditEntry.findMany({ where: { orgId: org.orgId, subject: p.personDid }, orderBy: { seq: "asc" } });
    expect(entries.map((e) => e.action)).toEqual(["kyc.started", "aml.sanctions_hit", "kyc.rejected", "aml.sanctions_hit"]);
    expect(entries[3]!.data).toMatchObject({ caseId: cases[0]!.id, opened: false, previousPriority: "high", priority: "critical" });
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });

  it("a case opened under the person's lock alone (a key change) while a review's hit waits: the review escalates it, no second case", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await approvedPerson(url, api);
    const p = await started(api);
    const res = await reviewWhileHolding(db, url, p.applicantId, "pep", async (tx) => {
      await lockAmlSubject(tx, org.orgId, p.personId);
      const opened = await recordKeyChange(tx, {
        orgId: org.orgId,
        personId: p.personId,
        subjectDid: p.personDid,
        accountDid: "did:test:account",
        bindingId: "binding",
        change: "suspended",
        actor: "system:test",
      });
      expect(opened).not.toBeNull();
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe("approved");
    const cases = await db.amlCase.findMany({ where: { orgId: org.orgId, personId: p.personId } });
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({ status: "open", priority: "high", openedBy: "system:test" });
    expect(await db.amlCaseHit.count({ where: { caseId: cases[0]!.id } })).toBe(1);
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  });
});
