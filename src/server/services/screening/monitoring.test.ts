import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/client";
import { didOf, serviceCtx } from "../../testing/aml";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { approvedPerson } from "../../testing/kyc-flow";
import { proposeClear } from "../aml";
import { importList } from "./import";
import { enqueuePeriodicRuns } from "./monitoring-enqueue";
import { runMonitoring } from "./monitoring-runs";
import { openSubject, rememberScreeningSubject } from "./monitoring-subjects";

// Ongoing screening: a list change re-screens approved people against its new and changed
// entries, opening cases exactly as a screening at KYC approval does.

type Entry = { id: string; name: string; birthDate?: string; country?: string; topics?: string[]; alias?: string[] };

const ftm = (entries: Entry[]) =>
  entries
    .map((e) =>
      JSON.stringify({
        id: e.id,
        schema: "Person",
        properties: {
          name: [e.name],
          birthDate: e.birthDate ? [e.birthDate] : [],
          country: e.country ? [e.country] : [],
          topics: e.topics ?? ["sanction"],
          alias: e.alias ?? [],
        },
      }),
    )
    .join("\n");

const uniqueList = () => `mon-test-${randomBytes(4).toString("hex")}`;

async function importFtm(db: Db, list: string, entries: Entry[]) {
  return importList(db, { format: "ftm", list, files: [{ name: "entities.ftm.json", text: ftm(entries) }], importedBy: "test:monitoring" });
}

async function approved(org: TestOrg, name: string, birthDate: string, country: string) {
  const p = await org.db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", country } });
  await rememberScreeningSubject(org.db, { orgId: org.orgId, personId: p.id, name, birthDate, country });
  return { id: p.id, did: didOf(p.id) };
}

const counts = async (org: TestOrg) => ({
  cases: await org.db.amlCase.count({ where: { orgId: org.orgId } }),
  events: await org.db.outboxEvent.count({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } }),
  hits: await org.db.amlCaseHit.count({ where: { orgId: org.orgId } }),
  results: await org.db.screeningResult.count({ where: { orgId: org.orgId } }),
});

const unrelated: Entry[] = [
  { id: "u-1", name: "Bartholomew Quenell Ardwick", birthDate: "1949-01-02", country: "GB" },
  { id: "u-2", name: "Philippa Roswitha Dunmore", birthDate: "1955-03-04", country: "IE", topics: ["role.pep"] },
];

describe("the identity kept at KYC approval", () => {
  it("is stored sealed when KYC approves a person, and opens to the identity the provider verified", async () => {
    const org = await createTestOrg();
    const { url } = await testServer();
    const { personDid } = await approvedPerson(url, client(url, org.apiKey));
    const personId = personDid.split(":people:")[1]!;
    const row = await org.db.screeningSubject.findUniqueOrThrow({ where: { personId } });
    expect(row.orgId).toBe(org.orgId);
    expect(row.querySealed).not.toContain("Alex");
    // Sealed under the person's own data key, which alone opens it.
    expect(row.querySealed.startsWith(`p1.${personId}.`)).toBe(true);
    const key = await org.db.personKey.findUniqueOrThrow({ where: { personId } });
    expect(openSubject(row.querySealed)).toBeNull();
    expect(openSubject(row.querySealed, key.keySealed)).toEqual({ name: "Alex Example Sample", birthDate: "1990-01-01", country: "GH" });
  });
});

describe("re-screen after a list change", () => {
  it("opens exactly one case and one webhook event for the one new matching entry, and nothing on the same import again", async () => {
    const org = await createTestOrg();
    const list = uniqueList();
    const target = await approved(org, "Zebulon Quirinus Marchbanks", "1971-06-15", "NZ");
    await approved(org, "Henrietta Ovidia Plunkett", "1988-11-30", "CA");

    const v1 = await importFtm(org.db, list, unrelated);
    await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    const first = await org.db.screeningMonitorRun.findFirstOrThrow({ where: { orgId: org.orgId, listVersionId: v1.listVersionId } });
    expect(first).toMatchObject({ status: "completed", kind: "list_change", changedEntries: 2, personsScreened: 2, hits: 0 });
    expect(await counts(org)).toEqual({ cases: 0, events: 0, hits: 0, results: 0 });

    const added = { id: "x-zebulon", name: "Zebulon Q. Marchbanks", birthDate: "1971-06-15", country: "NZ" };
    const v2 = await importFtm(org.db, list, [...unrelated, added]);
    expect(v2.unchanged).toBe(false);
    const { processed } = await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    expect(processed).toHaveLength(1);
    const run = await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: processed[0]! } });
    expect(run).toMatchObject({
      status: "completed",
      phase: "done",
      listVersionId: v2.listVersionId,
      previousVersionId: v1.listVersionId,
      changedEntries: 1,
      personsScreened: 2,
      personsSkipped: 0,
      hits: 1,
      casesOpened: 1,
    });
    expect(await counts(org)).toEqual({ cases: 1, events: 1, hits: 1, results: 1 });
    const kase = await org.db.amlCase.findFirstOrThrow({ where: { orgId: org.orgId } });
    expect(kase).toMatchObject({ personId: target.id, subjectDid: target.did, status: "open", priority: "critical" });
    const event = await org.db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } });
    expect(event.payload).toEqual({ personDid: target.did, severity: "critical" });
    const person = await org.db.person.findUniqueOrThrow({ where: { id: target.id } });
    expect(person).toMatchObject({ sanctionsFlag: true, pepFlag: false });
    const result = await org.db.screeningResult.findFirstOrThrow({ where: { orgId: org.orgId } });
    expect(result).toMatchObject({ subjectRef: target.did, sanctionsHit: true, severity: "critical" });
    expect((result.detail as { matches: { externalId: string; list: string }[] }).matches).toEqual([
      expect.objectContaining({ externalId: "x-zebulon", list }),
    ]);
    const audit = await org.db.auditEntry.findMany({
      where: { orgId: org.orgId },
      orderBy: { seq: "asc" },
      select: { action: true, actor: true },
    });
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(["aml.sanctions_hit", "aml.screened", "screening.rescreen_completed"]),
    );
    expect(audit.filter((a) => a.action === "aml.sanctions_hit")).toEqual([
      { action: "aml.sanctions_hit", actor: "system:screening-monitor" },
    ]);

    // The same files again: the version is unchanged, nothing is queued, nothing more is opened.
    const again = await importFtm(org.db, list, [...unrelated, added]);
    expect(again).toMatchObject({ unchanged: true, listVersionId: v2.listVersionId });
    expect((await runMonitoring(org.db, { orgId: org.orgId, limit: 10 })).processed).toEqual([]);
    expect(await counts(org)).toEqual({ cases: 1, events: 1, hits: 1, results: 1 });
    expect(await org.db.screeningMonitorRun.count({ where: { orgId: org.orgId } })).toBe(2);
  });

  it("writes the same rows in a batch's one grouped statement as in a transaction, person by person, and with its pages scored on a thread", async () => {
    const people: [string, string, string][] = [
      ["Cornelius Aldous Fairweather", "1961-05-05", "GB"],
      ["Griselda Ottoline Pemberton", "1974-09-09", "IE"],
      ["Tiberius Anselm Crowcroft", "1980-02-02", "MT"],
      ["Ermintrude Sabine Loxley", "1990-10-10", "NZ"],
    ];
    const a = await createTestOrg();
    const b = await createTestOrg();
    const c = await createTestOrg();
    const ids = { a: [] as string[], b: [] as string[], c: [] as string[] };
    for (const [name, birthDate, country] of people) {
      ids.a.push((await approved(a, name, birthDate, country)).id);
      ids.b.push((await approved(b, name, birthDate, country)).id);
      ids.c.push((await approved(c, name, birthDate, country)).id);
    }
    const list = uniqueList();
    await importFtm(a.db, list, unrelated);
    for (const org of [a, b, c]) await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    // A sanctions hit, a PEP hit (on an alias), a match of neither (a result, no case), and nobody.
    await importFtm(a.db, list, [
      ...unrelated,
      { id: "g-1", name: "Cornelius A. Fairweather", birthDate: "1961-05-05", country: "GB" },
      { id: "g-2", name: "Gertrude Pemberton", alias: ["Griselda Ottoline Pemberton"], birthDate: "1974", topics: ["role.pep"] },
      { id: "g-3", name: "Tiberius Anselm Crowcroft", birthDate: "1980-02-02", topics: ["crime"] },
    ]);
    await runMonitoring(a.db, { orgId: a.orgId, limit: 10 });
    await runMonitoring(b.db, { orgId: b.orgId, limit: 10, grouped: false });
    // Pages of two, each cut between a scoring thread and the run's own thread (monitoring-scoring.ts).
    await runMonitoring(c.db, { orgId: c.orgId, limit: 10, batchSize: 2, scoringThreads: 1 });

    // Everything the two wrote, with each organization's person ids as their number and other ids blanked.
    const written = async (org: TestOrg, personIds: string[]) => {
      const where = { orgId: org.orgId };
      const rows = {
        results: await org.db.screeningResult.findMany({ where, orderBy: { subjectRef: "asc" } }),
        cases: await org.db.amlCase.findMany({ where, orderBy: { subjectDid: "asc" } }),
        hits: await org.db.amlCaseHit.findMany({ where, orderBy: { score: "asc" } }),
        caseEvents: await org.db.amlCaseEvent.findMany({ where, orderBy: { seq: "asc" } }),
        events: await org.db.outboxEvent.findMany({ where, orderBy: { createdAt: "asc" } }),
        people: await org.db.person.findMany({
          where,
          orderBy: { id: "asc" },
          select: { id: true, sanctionsFlag: true, pepFlag: true, riskScore: true },
        }),
        audit: await org.db.auditEntry.findMany({ where: { ...where, actor: "system:screening-monitor" }, orderBy: { seq: "asc" } }),
      };
      let text = JSON.stringify({
        ...rows,
        results: rows.results.map((r) => ({ ...r, detail: { ...(r.detail as object), monitoringRunId: null } })),
        // A case event's seq counts across the database: the order within a case is what compares.
        caseEvents: rows.caseEvents.map(({ seq: _, ...e }) => e),
        cases: rows.cases.map((c) => ({ ...c, dueInMs: (c.dueAt?.getTime() ?? 0) - c.createdAt.getTime() })),
        // The subject is sealed under the person's key with a fresh IV each time: present in both is what compares.
        hits: rows.hits.map((h) => ({
          ...h,
          evidence: {
            ...(h.evidence as object),
            subject: {
              ...(h.evidence as { subject: object }).subject,
              sealed: !!(h.evidence as { subject: { sealed: string | null } }).subject.sealed,
            },
          },
        })),
        audit: rows.audit.map((e) => ({ action: e.action, subjectType: e.subjectType, subject: e.subject, data: e.data })),
      });
      personIds.forEach((id, i) => {
        text = text.replaceAll(id, `person-${i}`);
      });
      text = text.replaceAll(org.orgId, "org").replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "id");
      const out = JSON.parse(text.replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"time"').replace(/"(runId|monitoringRunId)":"id"/g, '"$1":null'));
      // People are taken in id order, which differs between the two organizations: compare each kind of row as a set.
      const sorted = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
      return {
        audit: out.audit as { action: string; subject: string }[],
        rows: Object.fromEntries(Object.entries(out).map(([k, v]) => [k, sorted(v as unknown[])])),
      };
    };
    const grouped = await written(a, ids.a);
    const inTransaction = await written(b, ids.b);
    expect(grouped.rows.results).toHaveLength(3);
    expect(grouped.rows.cases).toHaveLength(2);
    expect(grouped.rows.hits).toHaveLength(2);
    expect(grouped.rows).toEqual(inTransaction.rows);
    const threaded = await written(c, ids.c);
    expect(threaded.rows).toEqual(grouped.rows);
    // In both, each hit's entry comes right before the person's aml.screened, as the transaction appends them.
    for (const { audit } of [grouped, inTransaction, threaded]) {
      expect(audit.filter((e) => e.action === "aml.screened")).toHaveLength(3);
      audit.forEach((e, i) => {
        if (e.action === "aml.sanctions_hit") expect(audit[i + 1]).toMatchObject({ action: "aml.screened", subject: e.subject });
      });
    }
  });

  it("gives the same outcome when the change is too large to hold in memory (read through the key table)", async () => {
    const org = await createTestOrg();
    const list = uniqueList();
    const target = await approved(org, "Wilhelmina Peregrine Stoke", "1968-08-18", "GB");
    await importFtm(org.db, list, unrelated);
    await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    await importFtm(org.db, list, [
      ...unrelated.map((e) => ({ ...e, country: "US" })),
      { id: "x-w", name: "Wilhelmina Peregrine Stoke", birthDate: "1968-08-18", country: "GB" },
    ]);
    const { processed } = await runMonitoring(org.db, { orgId: org.orgId, maxInMemory: 2 });
    expect(await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: processed[0]! } })).toMatchObject({
      status: "completed",
      changedEntries: 3,
      personsScreened: 1,
      hits: 1,
      casesOpened: 1,
    });
    expect(await org.db.amlCase.findFirstOrThrow({ where: { orgId: org.orgId } })).toMatchObject({ personId: target.id });
  });

  it("does not reopen a cleared match, neither on a later change of the entry nor on a periodic re-screen", async () => {
    const org = await createTestOrg();
    const list = uniqueList();
    const target = await approved(org, "Octavian Perpetua Wrexley", "1966-02-09", "MT");
    const entry = { id: "x-octavian", name: "Octavian Perpetua Wrexley", birthDate: "1966-02-09", country: "MT" };
    await importFtm(org.db, list, [...unrelated, entry]);
    await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    expect(await counts(org)).toMatchObject({ cases: 1, events: 1 });

    const ctx = await serviceCtx(org.db, org.orgId, { type: "member", email: "co@monitoring.test", role: "compliance_officer" });
    const cleared = await proposeClear(ctx, { subjectDid: target.did, reason: "Different person: other passport" });
    expect(cleared.cleared).toBe(true);

    // The entry changes (a new alias) but scores the same against the person: not reopened.
    await importFtm(org.db, list, [...unrelated, { ...entry, alias: ["O. P. Wrexley"] }]);
    const changed = await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    const run = await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: changed.processed[0]! } });
    expect(run).toMatchObject({ status: "completed", changedEntries: 1, personsScreened: 1, hits: 0, casesOpened: 0 });

    // A periodic re-screen of everyone against every active list: the cleared match stays cleared.
    const api = client((await testServer()).url, org.apiKey);
    expect((await api.put("/v1/admin/screening-monitoring", { frequency: "daily" })).body).toMatchObject({ frequency: "daily" });
    await enqueuePeriodicRuns(org.db);
    await enqueuePeriodicRuns(org.db);
    const periodic = await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    expect(periodic.processed).toHaveLength(1);
    expect(await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: periodic.processed[0]! } })).toMatchObject({
      kind: "periodic",
      status: "completed",
      personsScreened: 1,
      hits: 0,
    });
    expect(await counts(org)).toMatchObject({ cases: 1, events: 1, hits: 1 });
    expect(await org.db.amlCase.findFirstOrThrow({ where: { orgId: org.orgId } })).toMatchObject({ status: "cleared" });
    expect(await org.db.person.findUniqueOrThrow({ where: { id: target.id } })).toMatchObject({ sanctionsFlag: false });
  });

  it("resumes after a failure in the middle of a batch without recording anything twice", async () => {
    const org = await createTestOrg();
    const list = uniqueList();
    const people = [
      ["Aurelio Fennimore Castellane", "1959-05-05", "IT"],
      ["Benedikta Sorrel Quandt", "1962-07-21", "DE"],
      ["Cornelius Abernathy Vosk", "1970-01-30", "NL"],
      ["Drusilla Marigold Penhallow", "1981-12-12", "GB"],
      ["Evander Thaddeus Krumholz", "1975-08-08", "AT"],
    ] as const;
    const persons = [];
    for (const [name, birthDate, country] of people) persons.push(await approved(org, name, birthDate, country));
    await importFtm(org.db, list, unrelated);
    await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    await importFtm(org.db, list, [
      ...unrelated,
      ...people.map(([name, birthDate, country], i) => ({ id: `x-${i}`, name, birthDate, country })),
    ]);

    // Batches of two: the second batch has written its results and cases when it fails.
    let calls = 0;
    const crashed = await runMonitoring(org.db, {
      orgId: org.orgId,
      batchSize: 2,
      onBatch: (n) => {
        calls++;
        if (n === 2) throw new Error("simulated crash in the middle of a batch");
      },
    });
    expect(calls).toBe(2);
    const run = await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: crashed.processed[0]! } });
    expect(run).toMatchObject({ status: "queued", phase: "persons", personsScreened: 2, hits: 2, casesOpened: 2, attempts: 1 });
    expect(await counts(org)).toMatchObject({ cases: 2, events: 2, results: 2 });

    const resumed = await runMonitoring(org.db, { orgId: org.orgId, batchSize: 2 });
    expect(resumed.processed).toEqual([run.id]);
    expect(await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: "completed",
      personsScreened: 5,
      hits: 5,
      casesOpened: 5,
      attempts: 2,
    });
    expect(await counts(org)).toEqual({ cases: 5, events: 5, hits: 5, results: 5 });
    const perPerson = await org.db.amlCase.groupBy({ by: ["personId"], where: { orgId: org.orgId }, _count: true });
    expect(perPerson.map((g) => g._count).sort()).toEqual([1, 1, 1, 1, 1]);
    expect(new Set(perPerson.map((g) => g.personId))).toEqual(new Set(persons.map((p) => p.id)));
  });

  it("takes over a run whose runner died (lease ran out) at its last committed batch", async () => {
    const org = await createTestOrg();
    const list = uniqueList();
    for (const [name, birthDate, country] of [
      ["Fenwick Ismay Trelawney", "1958-04-04", "GB"],
      ["Gwendolyn Araminta Skerritt", "1964-09-19", "IE"],
      ["Hieronymus Balthazar Oakeshott", "1972-03-03", "AU"],
    ] as const) {
      await approved(org, name, birthDate, country);
    }
    await importFtm(org.db, list, unrelated);
    await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    await importFtm(org.db, list, [
      ...unrelated,
      { id: "x-f", name: "Fenwick Ismay Trelawney", birthDate: "1958-04-04", country: "GB" },
      { id: "x-h", name: "Hieronymus Balthazar Oakeshott", birthDate: "1972-03-03", country: "AU" },
    ]);
    // A runner that never comes back: it hangs inside its second batch while holding the run.
    let release!: () => void;
    const hung = new Promise<void>((r) => {
      release = r;
    });
    const dead = runMonitoring(org.db, {
      orgId: org.orgId,
      batchSize: 1,
      onBatch: async (n) => {
        if (n === 2) {
          await hung;
          throw new Error("the process was killed");
        }
      },
    }).catch(() => undefined);
    const queued = async () =>
      org.db.screeningMonitorRun.findFirstOrThrow({ where: { orgId: org.orgId, kind: "list_change" }, orderBy: { createdAt: "desc" } });
    await expect.poll(async () => (await queued()).personsScreened, { timeout: 10_000 }).toBe(1);
    const run = await queued();
    expect(run.status).toBe("running");
    // Nobody else may take it while the lease holds; once it runs out, another runner does.
    expect((await runMonitoring(org.db, { orgId: org.orgId })).processed).toEqual([]);
    await org.db.screeningMonitorRun.update({ where: { id: run.id }, data: { lockedUntil: new Date(Date.now() - 1000) } });
    // The dead runner's open transaction ends (as the server would end a killed connection's)
    // before another runner looks: a claim skips rows still locked, so starting it earlier races.
    release();
    await dead;
    const takeover = runMonitoring(org.db, { orgId: org.orgId, batchSize: 1 });
    expect((await takeover).processed).toEqual([run.id]);
    expect(await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: "completed",
      personsScreened: 3,
      hits: 2,
      attempts: 2,
    });
    expect(await counts(org)).toMatchObject({ cases: 2, events: 2, results: 2 });
  });
});

describe("a runner killed in the middle of a batch", () => {
  it("loses that batch only: after SIGKILL the run resumes at its cursor and records every match once", { timeout: 90_000 }, async () => {
    const org = await createTestOrg();
    const list = uniqueList();
    const people = [
      ["Isidora Winifred Ballantyne", "1961-02-02", "GB"],
      ["Jasper Leofric Thistlewood", "1969-06-06", "GB"],
      ["Katarina Honoria Vellacott", "1974-04-14", "GB"],
      ["Lysander Ambrose Pettigrew", "1983-03-23", "GB"],
    ] as const;
    for (const [name, birthDate, country] of people) await approved(org, name, birthDate, country);
    await importFtm(org.db, list, unrelated);
    await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    await importFtm(org.db, list, [
      ...unrelated,
      ...people.map(([name, birthDate, country], i) => ({ id: `k-${i}`, name, birthDate, country })),
    ]);

    // Another process runs the job with batches of one and stops forever inside its second batch,
    // after that batch's writes and before its commit; then it is killed.
    const code = `
      const { getDb } = await import("./src/server/db/client.ts");
      const { runMonitoring } = await import("./src/server/services/screening/monitoring-runs.ts");
      await runMonitoring(await getDb(), { orgId: process.env.MONITOR_ORG, batchSize: 1, onBatch: async (n) => {
        if (n === 2) { process.stdout.write("in-batch-2\\n"); await new Promise(() => {}); }
      } });`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
      env: { ...process.env, VITEST: "", LOG_LEVEL: "silent", MONITOR_ORG: org.orgId },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await expect.poll(() => out + (child.exitCode !== null ? `exited: ${err}` : ""), { timeout: 30_000 }).toContain("in-batch-2");
    const run = await org.db.screeningMonitorRun.findFirstOrThrow({ where: { orgId: org.orgId }, orderBy: { createdAt: "desc" } });
    expect(run).toMatchObject({ status: "running", personsScreened: 1, hits: 1 });
    child.kill("SIGKILL");
    await exited;

    // The killed runner's batch was never committed; its lease still holds the run.
    expect(await counts(org)).toMatchObject({ cases: 1, events: 1, results: 1 });
    expect((await runMonitoring(org.db, { orgId: org.orgId })).processed).toEqual([]);
    // Once the lease runs out (5 minutes; brought forward here), the next runner resumes at the cursor.
    await org.db.screeningMonitorRun.update({ where: { id: run.id }, data: { lockedUntil: new Date(Date.now() - 1000) } });
    // PostgreSQL ends the killed session's transaction only once it notices the connection is gone
    // (later on a busy machine); until then its row lock hides the run from SKIP LOCKED claims.
    await expect
      .poll(async () => (await runMonitoring(org.db, { orgId: org.orgId })).processed, { timeout: 20_000, interval: 250 })
      .toEqual([run.id]);
    expect(await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: "completed",
      personsScreened: 4,
      hits: 4,
      casesOpened: 4,
      attempts: 2,
    });
    expect(await counts(org)).toEqual({ cases: 4, events: 4, hits: 4, results: 4 });
  });
});

describe("bound accounts", () => {
  it("re-screens bound accounts when an account-labels list changes, once per new label set", async () => {
    const org = await createTestOrg();
    const list = uniqueList();
    const letters = "abcdefghijklmnopqrstuvwxyz12345";
    const name = Array.from(randomBytes(12), (b) => letters[b % letters.length]).join("");
    const unbound = Array.from(randomBytes(12), (b) => letters[b % letters.length]).join("");
    const p = await approved(org, "Ignatius Florian Wetherby", "1980-10-10", "FR");
    const account = await org.db.account.create({
      data: {
        orgId: org.orgId,
        chain: "test",
        name,
        did: `did:antelope:test:${name}`,
        ownerPublicKey: "PUB_K1_x",
        activePublicKey: "PUB_K1_x",
      },
    });
    await org.db.account.create({
      data: {
        orgId: org.orgId,
        chain: "test",
        name: unbound,
        did: `did:antelope:test:${unbound}`,
        ownerPublicKey: "PUB_K1_y",
        activePublicKey: "PUB_K1_y",
      },
    });
    await org.db.accountBinding.create({
      data: { orgId: org.orgId, accountId: account.id, personId: p.id, bindingVcHash: "h", credential: {}, issuerKeyId: "k" },
    });
    const labels = (rows: string[]) =>
      importList(org.db, {
        format: "labels",
        list,
        files: [{ name: "labels.csv", text: ["chain_account,labels,score", ...rows].join("\n") }],
        importedBy: "test:monitoring",
      });
    await labels([`${name},scam;phishing,90`, `${unbound},mixer,70`]);
    const { processed } = await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    const run = await org.db.screeningMonitorRun.findUniqueOrThrow({ where: { id: processed[0]! } });
    expect(run).toMatchObject({ status: "completed", phase: "done", changedEntries: 2, personsScreened: 0, accountsScreened: 1, hits: 1 });
    const results = await org.db.screeningResult.findMany({ where: { orgId: org.orgId, subjectType: "account" } });
    expect(results).toEqual([expect.objectContaining({ subjectRef: name, labels: ["phishing", "scam"], score: 90, severity: "medium" })]);
    expect(await org.db.auditEntry.count({ where: { orgId: org.orgId, action: "aml.account_screened", subject: name } })).toBe(1);

    // Same labels in another order and an unrelated change: the account is not reported again.
    await labels([`${name},phishing;scam,90`, `${unbound},mixer,75`]);
    await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    expect(await org.db.screeningResult.count({ where: { orgId: org.orgId, subjectType: "account" } })).toBe(1);
  });
});

describe("/v1 reads and the periodic setting", () => {
  it("lists versions, diffs two of them, shows the organization's runs and keeps other organizations' runs out", async () => {
    const org = await createTestOrg();
    const other = await createTestOrg();
    const list = uniqueList();
    await approved(org, "Leopoldina Carys Ashburnham", "1977-07-07", "GB");
    const v1 = await importFtm(org.db, list, [...unrelated, { id: "r-1", name: "Mortimer Eustace Gallow", birthDate: "1940-01-01" }]);
    const v2 = await importFtm(org.db, list, [
      { ...unrelated[0]!, birthDate: "1949-01-03" },
      unrelated[1]!,
      { id: "a-1", name: "Leopoldina Carys Ashburnham", birthDate: "1977-07-07", country: "GB" },
    ]);
    await runMonitoring(org.db, { orgId: org.orgId, limit: 10 });
    const { url } = await testServer();
    const api = client(url, org.apiKey);

    const versions = await api.get(`/v1/aml/list-versions?list=${list}`);
    expect(versions.status).toBe(200);
    expect(versions.body.versions).toEqual([
      expect.objectContaining({
        listVersionId: v2.listVersionId,
        list,
        format: "ftm",
        entryCount: 3,
        active: true,
        importedBy: "test:monitoring",
        scope: "global",
      }),
      expect.objectContaining({ listVersionId: v1.listVersionId, entryCount: 3, active: false, activatedAt: expect.any(String) }),
    ]);

    const diff = await api.get(`/v1/aml/list-versions/diff?from=${v1.listVersionId}&to=${v2.listVersionId}`);
    expect(diff.status).toBe(200);
    expect(diff.body).toEqual({
      list,
      from: v1.listVersionId,
      to: v2.listVersionId,
      counts: { added: 1, removed: 1, changed: 1 },
      added: ["a-1"],
      removed: ["r-1"],
      changed: ["u-1"],
      truncated: false,
      names: { "a-1": "Leopoldina Carys Ashburnham", "r-1": "Mortimer Eustace Gallow", "u-1": "Bartholomew Quenell Ardwick" },
    });
    const otherList = await importFtm(org.db, uniqueList(), unrelated);
    expect((await api.get(`/v1/aml/list-versions/diff?from=${v1.listVersionId}&to=${otherList.listVersionId}`)).status).toBe(400);
    expect((await api.get(`/v1/aml/list-versions/diff?from=${v1.listVersionId}&to=${crypto.randomUUID()}`)).status).toBe(404);

    const runs = await api.get("/v1/aml/monitoring/runs");
    expect(runs.status).toBe(200);
    const run = runs.body.runs.find((r: { listVersionId: string }) => r.listVersionId === v2.listVersionId);
    expect(run).toMatchObject({
      kind: "list_change",
      status: "completed",
      phase: "done",
      list,
      previousVersionId: v1.listVersionId,
      counts: { changedEntries: 2, personsScreened: 1, personsTotal: 1, personsSkipped: 0, accountsScreened: 0, hits: 1, casesOpened: 1 },
    });
    expect((await api.get(`/v1/aml/monitoring/runs/${run.runId}`)).body).toEqual(run);
    const otherApi = client(url, other.apiKey);
    expect((await otherApi.get(`/v1/aml/monitoring/runs/${run.runId}`)).status).toBe(404);
    expect((await otherApi.get("/v1/aml/monitoring/runs")).body.runs).toEqual([]);
    expect((await api.get("/v1/aml/monitoring/runs/not-a-uuid")).status).toBe(404);
  });

  it("sets the periodic re-screen (admin), audits it, and refuses an unknown frequency", async () => {
    const org = await createTestOrg();
    const api = client((await testServer()).url, org.apiKey);
    expect((await api.get("/v1/admin/screening-monitoring")).body).toEqual({ frequency: "off", updatedBy: null, updatedAt: null });
    const set = await api.put("/v1/admin/screening-monitoring", { frequency: "weekly" });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ frequency: "weekly", updatedBy: expect.any(String) });
    expect((await api.get("/v1/admin/screening-monitoring")).body).toEqual(set.body);
    expect((await api.put("/v1/admin/screening-monitoring", { frequency: "hourly" })).status).toBe(400);
    const audit = await org.db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "screening.monitoring_updated" } });
    expect(audit.data).toEqual({ frequency: "weekly", previous: "off" });

    // One run per ISO week however often the schedule is looked at.
    await enqueuePeriodicRuns(org.db);
    await enqueuePeriodicRuns(org.db);
    const runs = await org.db.screeningMonitorRun.findMany({ where: { orgId: org.orgId } });
    expect(runs).toEqual([
      expect.objectContaining({ kind: "periodic", status: "queued", dedupeKey: expect.stringMatching(/^periodic:\d{4}-W\d{2}$/) }),
    ]);
  });
});
