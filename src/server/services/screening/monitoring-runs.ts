import type { ScreeningMonitorRun } from "@/generated/prisma/client.ts";
import { issuerDid } from "../../crypto/issuer-keys";
import { type Db, Prisma, rawQuery, type Tx } from "../../db/client";
import { logger } from "../../log";
import { personDidOf } from "../../platform/account-ref";
import * as workQueue from "../../platform/work-queue";
import { readScreeningDetail, recordScreeningHit, screeningDetailJson } from "../aml";
import { appendAudit, appendAuditGrouped, type GroupedWrite } from "../audit";
import { type ChangedEntryIndex, changedAccountLabels, changedEntryIndex, countChangedPersonEntries } from "./monitoring-changes";
import { monitoringMetrics } from "./monitoring-metrics";
import { groupedMatches, MONITOR_ACTOR, monitoringResultDetail, type PersonFound } from "./monitoring-record";
import { defaultThreads, type PersonRow, ScoringThreads, scoreAgainstChange } from "./monitoring-scoring";
import { openSubject } from "./monitoring-subjects";
import { nameTokens } from "./normalize";
import { activePersonLists, findMatches, SCREENING_PROVIDER, severityOf, visibleLists } from "./screen";

/**
 * People (or accounts) per batch: their matches and the cursor's move commit together (one
 * grouped statement, or one transaction), and a run resumes after the last batch committed.
 */
export const MONITOR_BATCH = 1_000;
/** A runner renews its lease at every batch; a runner silent for this long is taken over. */
const LEASE_MS = 5 * 60_000;
const MAX_ATTEMPTS = 5;

/** Re-screen runs as a leased queue: queued → running (renewed at every batch) → completed | failed. */
export const monitoringQueue: workQueue.WorkQueue = {
  table: "screening_monitor_runs",
  org: "orgId",
  status: "status",
  waiting: ["queued"],
  running: "running",
  done: "completed",
  failed: "failed",
  lease: "lockedUntil",
  token: "leaseToken",
  claims: "attempts",
  order: "createdAt",
};

type Claim = workQueue.Lease & { attempts: number };
type Version = { id: string; list: string; versionHash: string };

export type RunOptions = {
  /** Only this organization's runs (tests, so they never run another test's runs). */
  orgId?: string;
  /** Runs to take in this call. */
  limit?: number;
  batchSize?: number;
  /** Changed entries held in memory at most (default 50,000); a larger change is read through the key table. */
  maxInMemory?: number;
  /**
   * Called before each batch of people commits, after its writes inside its transaction or before
   * its one statement, so a failure leaves the batch unwritten (fault injection).
   */
  onBatch?: (batch: number) => void | Promise<void>;
  /** False: every batch with matches written in a transaction, person by person (tests compare it with the grouped statement). */
  grouped?: boolean;
  /**
   * Threads scoring parts of each page against a change held in memory, beside this one
   * (monitoring-scoring.ts). By default BI_RESCREEN_THREADS, else one on a machine with a second
   * core, started at the first page of MONITOR_BATCH people; 0: every page scored on this thread.
   */
  scoringThreads?: number;
};

/** The run lost its lease to another runner: its batch is rolled back and the run left to that runner. */
class LeaseLost extends Error {}

/**
 * Claims the oldest queued run, or a running one whose lease ran out (its runner died), with
 * FOR UPDATE SKIP LOCKED: several instances claim at once, never the same run.
 */
export async function claimMonitoringRun(db: Db, orgId: string | null): Promise<Claim | null> {
  const [claim] = await workQueue.claim<{ attempts: number }>(db, monitoringQueue, {
    limit: 1,
    leaseMs: LEASE_MS,
    orgIds: orgId ? [orgId] : null,
    set: Prisma.sql`"startedAt" = coalesce(q."startedAt", now() AT TIME ZONE 'UTC')`,
    select: Prisma.sql`q.attempts`,
  });
  return claim ?? null;
}

/**
 * Claims and runs up to `limit` re-screen runs, one after another, each to its end. Every batch
 * commits its results, cases and the run's cursor together, so a run interrupted anywhere (a
 * crash, a lost lease) resumes after the last committed batch and records nothing twice.
 */
export async function runMonitoring(db: Db, opts: RunOptions = {}): Promise<{ processed: string[] }> {
  const processed: string[] = [];
  const limit = opts.limit ?? 1;
  while (processed.length < limit) {
    const claim = await claimMonitoringRun(db, opts.orgId ?? null);
    if (!claim) break;
    processed.push(claim.id);
    await processRun(db, claim, opts);
  }
  return { processed };
}

async function processRun(db: Db, claim: Claim, opts: RunOptions): Promise<void> {
  const run = await db.screeningMonitorRun.findUniqueOrThrow({ where: { id: claim.id } });
  if (claim.attempts > MAX_ATTEMPTS) return fail(db, claim, run, `The re-screen did not finish after ${MAX_ATTEMPTS} attempts.`);
  try {
    await execute(db, claim, run, opts);
  } catch (err) {
    if (err instanceof LeaseLost) return;
    logger().error({ runId: claim.id, attempt: claim.attempts, err: { message: (err as Error)?.message } }, "screening re-screen failed");
    if (claim.attempts >= MAX_ATTEMPTS)
      return fail(db, claim, run, "The re-screen failed on our side; it will run again at the next list change.");
    // Back to the queue: the next claim resumes at the last committed cursor.
    await workQueue.fail(db, monitoringQueue, claim, { retryInMs: 0 });
  }
}

type Totals = { personsScreened: number; accountsScreened: number; hits: number; casesOpened: number };

/** What one run screens people against: the change's in-memory index, or every active list. */
type PersonSource =
  | { kind: "changed"; index: ChangedEntryIndex; versions: Version[] }
  | { kind: "all"; versions: Version[]; changed?: number };
type AccountSource = { kind: "changed"; labels: Map<string, { listVersionId: string; labels: string[]; score: number }> } | { kind: "all" };

async function execute(db: Db, claim: Claim, run: ScreeningMonitorRun, opts: RunOptions): Promise<void> {
  const batchSize = opts.batchSize ?? MONITOR_BATCH;
  let phase = run.phase;
  let cursor = run.cursor;
  let batchNo = 0;
  let persons: PersonSource | undefined;
  let accounts: AccountSource | undefined;
  let changedEntries = run.changedEntries;
  // Pipelined: the next page is read while a batch is scored, and a batch is scored while the one
  // before commits (one commit in flight at most, in batch order: the next one waits for it).
  let prefetch: { after: string; rows: Promise<PersonRow[]> } | null = null;
  let pending: Promise<void> = Promise.resolve();
  let threads: ScoringThreads | undefined;
  try {
    while (phase !== "done") {
      const started = performance.now();
      const totals: Totals = { personsScreened: 0, accountsScreened: 0, hits: 0, casesOpened: 0 };
      let next: { phase: string; cursor: string | null };
      let work: ((tx: Tx) => Promise<void>) | null = null;
      let grouped: Awaited<ReturnType<typeof groupedMatches>> = null;
      if (phase === "persons") {
        persons ??= await personSource(db, run, opts.maxInMemory);
        if (persons.kind === "changed") changedEntries = persons.index.size;
        else if (persons.changed !== undefined) changedEntries = persons.changed;
        const batch: PersonRow[] = prefetch?.after === cursor ? await prefetch.rows : await personBatch(db, run.orgId, cursor, batchSize);
        prefetch = null;
        if (batch.length > 0) {
          const after: string = batch[batch.length - 1]!.personId;
          prefetch = { after, rows: personBatch(db, run.orgId, after, batchSize) };
          prefetch.rows.then(
            (rows) => threads?.ahead(rows), // the threads start on it as soon as it is read
            () => undefined, // awaited at the next batch, or dropped with the run
          );
          // Scoring a batch against the change in memory never yields: without this the next page's
          // query would only go out once the batch is scored, and each page would be waited for.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (batch.length === 0) {
          next = { phase: run.kind === "periodic" ? "accounts" : "done", cursor: null };
        } else {
          // Threads for a run of full pages (or as many as asked for), started once.
          const wanted = opts.scoringThreads ?? (batch.length >= MONITOR_BATCH ? defaultThreads() : 0);
          if (persons.kind === "changed" && !threads && wanted > 0)
            threads = ScoringThreads.start(persons.index, persons.versions[0]!.list, wanted);
          const found = await screenPeople(db, persons, batch, threads);
          const fresh = await withoutKnownMatches(db, run.orgId, found);
          totals.personsScreened = batch.length;
          next = { phase, cursor: batch[batch.length - 1]!.personId };
          if (fresh.length > 0) {
            // The batch's matches in one grouped statement with the cursor's move; in a transaction,
            // person by person, when one of them needs it (groupedMatches) or that statement fails.
            grouped = opts.grouped === false ? null : await groupedMatches(db, run, fresh, new Date());
            work = async (tx) => {
              totals.hits = 0;
              totals.casesOpened = 0;
              for (const f of fresh) {
                const opened = await recordPersonMatch(tx, run, f);
                totals.hits++;
                if (opened) totals.casesOpened++;
              }
            };
            if (grouped) {
              totals.hits = fresh.length;
              totals.casesOpened = grouped.casesOpened;
            }
          }
        }
      } else {
        accounts ??= await accountSource(db, run);
        if (accounts.kind === "changed") changedEntries = accounts.labels.size;
        const batch = await accountBatch(db, run.orgId, cursor, batchSize);
        if (batch.length === 0) {
          next = { phase: "done", cursor: null };
        } else {
          const found = await newAccountLabels(db, run.orgId, accounts, batch);
          totals.accountsScreened = batch.length;
          next = { phase, cursor: batch[batch.length - 1]!.id };
          work = async (tx) => {
            for (const f of found) {
              await recordAccountLabels(tx, run, f);
              totals.hits++;
            }
          };
        }
      }
      batchNo++;
      // This batch's own, for its commit (which may still run once the loop has moved on).
      const from = { phase, cursor, batchNo, changedEntries };
      // The cursor moves, and the lease is renewed, only if this runner still holds the run at the
      // cursor it started from (read when the move is written: the transaction counts as it writes).
      const move = () => ({
        where: Prisma.sql`q.phase = ${from.phase} AND q.cursor IS NOT DISTINCT FROM ${from.cursor}::text`,
        set: Prisma.sql`phase = ${next.phase}, cursor = ${next.cursor}::text, "changedEntries" = ${from.changedEntries},
            "personsScreened" = q."personsScreened" + ${totals.personsScreened},
            "accountsScreened" = q."accountsScreened" + ${totals.accountsScreened},
            hits = q.hits + ${totals.hits}, "casesOpened" = q."casesOpened" + ${totals.casesOpened}`,
      });
      const commit = async () => {
        let committed = false;
        if (next.phase !== "done" && !work) {
          // Nothing to write: the cursor's move alone, one statement.
          if (totals.personsScreened > 0) await opts.onBatch?.(from.batchNo);
          if (!(await workQueue.renew(db, monitoringQueue, claim, { leaseMs: LEASE_MS, ...move() }))) throw new LeaseLost();
          committed = true;
        } else if (next.phase !== "done" && grouped) {
          // Before the one statement that writes the batch: a failure here leaves the batch unwritten, as in the transaction.
          await opts.onBatch?.(from.batchNo);
          committed = await commitGrouped(db, claim, run.orgId, grouped, move());
        }
        if (!committed)
          await db.$transaction(
            async (tx) => {
              if (work) await work(tx);
              if (work && !grouped) await opts.onBatch?.(from.batchNo);
              const moved = await workQueue.renew(tx, monitoringQueue, claim, { leaseMs: LEASE_MS, ...move() });
              if (!moved) throw new LeaseLost();
              if (next.phase === "done") await complete(tx, claim, run);
            },
            { timeout: 5 * 60_000, maxWait: 60_000 },
          );
        const m = monitoringMetrics();
        if (totals.personsScreened) m.screened.inc({ subject: "person" }, totals.personsScreened);
        if (totals.accountsScreened) m.screened.inc({ subject: "account" }, totals.accountsScreened);
        if (totals.hits) m.hits.inc({ subject: from.phase === "persons" ? "person" : "account" }, totals.hits);
        if (work) m.batch.observe({ phase: from.phase }, (performance.now() - started) / 1000);
      };
      await pending;
      if (next.phase !== "done" && (!work || grouped)) {
        // One statement: left to run while the next batch is read and scored.
        pending = commit();
        pending.catch(() => undefined); // awaited before the next commit, or at the end
        await new Promise<void>((resolve) => setImmediate(resolve)); // let it go out before the next batch's scoring
      } else {
        pending = Promise.resolve();
        await commit();
      }
      phase = next.phase;
      cursor = next.cursor;
    }
  } finally {
    // Nothing of this run is left writing when execute returns or throws.
    await pending.catch(() => undefined);
    await threads?.close();
  }
  await pending;
}

/**
 * A batch's matches and the cursor's move as one grouped statement of the organization's audit
 * group commit (docs/performance.md, "Write path"): the results, flags, cases, hits, events and
 * audit entries commit together with the move, or nothing does. False when that statement
 * failed (a person or case written meanwhile, or the lease lost): the caller then writes the
 * batch in a transaction, which tells a lost lease from the rest.
 */
async function commitGrouped(
  db: Db,
  claim: Claim,
  orgId: string,
  grouped: NonNullable<Awaited<ReturnType<typeof groupedMatches>>>,
  move: { where: Prisma.Sql; set: Prisma.Sql },
): Promise<boolean> {
  const [first, ...also] = grouped.entries;
  const cursor: GroupedWrite = {
    sql: Prisma.sql`UPDATE screening_monitor_runs q
      SET "lockedUntil" = (now() AT TIME ZONE 'UTC') + ${LEASE_MS} * interval '1 millisecond', ${move.set}
      WHERE q.id = ${claim.id}::uuid AND q."leaseToken" = ${claim.token}::uuid AND q.status = 'running' AND ${move.where}`,
    rows: 1,
  };
  try {
    await appendAuditGrouped(db, orgId, { actor: first!.actor, input: first!.input, also, writes: [...grouped.writes, cursor] });
    return true;
  } catch (err) {
    logger().warn({ runId: claim.id, err: { message: (err as Error)?.message } }, "screening re-screen batch written in a transaction");
    return false;
  }
}

/** Closes the run in its last batch's transaction and audits it with its counts. */
async function complete(tx: Tx, claim: Claim, run: ScreeningMonitorRun): Promise<void> {
  // Approved people with no identity on file (approved before monitoring kept one) cannot be re-screened.
  const [row] = await tx.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM people p
    WHERE p."orgId" = ${run.orgId}::uuid AND p."kycStatus" = 'approved'
      AND NOT EXISTS (SELECT 1 FROM screening_subjects s WHERE s."personId" = p.id)`;
  // The batch's renew has just checked the claim, in this transaction.
  await workQueue.finish(tx, monitoringQueue, claim, {
    set: Prisma.sql`"personsSkipped" = ${row?.n ?? 0}, "completedAt" = now() AT TIME ZONE 'UTC', error = NULL`,
  });
  const done = await tx.screeningMonitorRun.findUniqueOrThrow({ where: { id: claim.id } });
  await appendAudit(
    tx,
    { orgId: run.orgId, actor: MONITOR_ACTOR },
    {
      action: "screening.rescreen_completed",
      subjectType: "screening_run",
      subject: run.id,
      data: {
        kind: run.kind,
        list: run.list,
        listVersionId: run.listVersionId,
        changedEntries: done.changedEntries,
        personsScreened: done.personsScreened,
        personsSkipped: done.personsSkipped,
        accountsScreened: done.accountsScreened,
        hits: done.hits,
        casesOpened: done.casesOpened,
      },
    },
  );
}

async function fail(db: Db, claim: Claim, run: ScreeningMonitorRun, error: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const ended = await workQueue.fail(tx, monitoringQueue, claim, {
      set: Prisma.sql`error = ${error}, "completedAt" = now() AT TIME ZONE 'UTC'`,
    });
    if (!ended) return;
    await appendAudit(
      tx,
      { orgId: run.orgId, actor: MONITOR_ACTOR },
      { action: "screening.rescreen_failed", subjectType: "screening_run", subject: run.id, data: { kind: run.kind, error } },
    );
  });
}

// ---- people ----

async function personSource(db: Db, run: ScreeningMonitorRun, maxInMemory?: number): Promise<PersonSource> {
  const versions = await activePersonLists(db, run.orgId);
  if (run.kind === "list_change" && run.listVersionId) {
    const v = await db.screeningListVersion.findUniqueOrThrow({
      where: { id: run.listVersionId },
      select: { id: true, list: true, versionHash: true, orgId: true },
    });
    // Another organization's own list is never screened for this one (runs are queued for the owner only).
    if (v.orgId && v.orgId !== run.orgId) return { kind: "all", versions: [], changed: 0 };
    const index = await changedEntryIndex(db, run.listVersionId, run.previousVersionId, maxInMemory);
    // A change too large for memory: every entry of the new version, through its key table.
    if (index) return { kind: "changed", index, versions: [v] };
    return { kind: "all", versions: [v], changed: await countChangedPersonEntries(db, run.listVersionId, run.previousVersionId) };
  }
  return { kind: "all", versions };
}

/** The next approved people with an identity on file, in id order after `cursor`. */
function personBatch(db: Db, orgId: string, cursor: string | null, size: number): Promise<PersonRow[]> {
  // Straight to the pool (rawQuery): a page is a thousand rows, which the ORM's row handling made
  // a sizeable part of the re-screen.
  return rawQuery<PersonRow>(db, personPageSql(orgId, cursor, size));
}

/**
 * The page personBatch reads. Each of its three reads goes through an index that holds what it
 * needs in person id order (migration 20261129050000_rescreen_page_indexes; partial on the sealed
 * columns being there, which every row the page wants meets and the page states): the subjects with
 * their sealed identity, the approved people not erased, and the data keys with the sealed key,
 * so PostgreSQL reads the indexes' leaf pages in order instead of visiting three heaps in random
 * order (about 60 buffers a page of 1,000 instead of 6,000; docs/performance.md, "Screening at
 * list sizes"). The keys are read as one range, from the cursor to the page's last person, and
 * joined to the page: looked up one by one, each cost a descent of person_keys' primary key. The
 * cursor bounds every read, or each would start at the organization's first person.
 */
export function personPageSql(orgId: string, cursor: string | null, size: number): Prisma.Sql {
  return Prisma.sql`
    WITH page AS MATERIALIZED (
      SELECT s."personId", s."querySealed"
      FROM screening_subjects s JOIN people p ON p.id = s."personId"
      WHERE s."orgId" = ${orgId}::uuid AND (${cursor}::uuid IS NULL OR s."personId" > ${cursor}::uuid)
        AND s."querySealed" IS NOT NULL
        AND p."orgId" = ${orgId}::uuid AND (${cursor}::uuid IS NULL OR p.id > ${cursor}::uuid)
        AND p."kycStatus" = 'approved' AND p."erasedAt" IS NULL
      ORDER BY s."personId"
      LIMIT ${size}),
    keys AS MATERIALIZED (
      SELECT k."personId", k."keySealed" FROM person_keys k
      WHERE k."orgId" = ${orgId}::uuid AND (${cursor}::uuid IS NULL OR k."personId" > ${cursor}::uuid)
        AND k."keySealed" IS NOT NULL AND k."personId" <= (SELECT "personId" FROM page ORDER BY "personId" DESC LIMIT 1))
    SELECT page."personId"::text AS "personId", page."querySealed", keys."keySealed"
    FROM page LEFT JOIN keys ON keys."personId" = page."personId"
    ORDER BY page."personId"`;
}

/** Scores each person of the batch; returns only the people with a match at or above the threshold. */
async function screenPeople(db: Db, source: PersonSource, batch: PersonRow[], threads?: ScoringThreads): Promise<PersonFound[]> {
  if (source.kind === "changed") {
    const found = threads ? await threads.score(batch) : scoreAgainstChange(source.index, source.versions[0]!.list, batch);
    return found.map((f) => ({ ...f, versions: source.versions }));
  }
  const found: PersonFound[] = [];
  for (const row of batch) {
    const query = openSubject(row.querySealed, row.keySealed);
    if (!query) continue;
    const tokens = nameTokens(query.name);
    const { matches } = await findMatches(db, query, { versions: source.versions });
    if (matches.length > 0) found.push({ personId: row.personId, query, tokens, matches, versions: source.versions });
  }
  return found;
}

const matchKey = (m: { list?: string; externalId?: string; score?: number }) => `${m.list}\u0000${m.externalId}\u0000${m.score}`;

/**
 * Drops the matches a stored screening of the same person already reported (same list, external
 * id and score): a match already on a case, open or cleared, is not raised again. A changed entry
 * or a different score is new evidence and is reported.
 */
async function withoutKnownMatches(db: Db, orgId: string, found: PersonFound[]): Promise<PersonFound[]> {
  if (found.length === 0) return found;
  const didOf = (id: string) => personDidOf(issuerDid(), id);
  const stored = await db.screeningResult.findMany({
    where: { orgId, subjectType: "person", subjectRef: { in: found.map((f) => didOf(f.personId)) } },
    select: { subjectRef: true, detail: true },
  });
  const known = new Map<string, Set<string>>();
  for (const r of stored) {
    const matches = readScreeningDetail(r.detail).matches ?? [];
    const set = known.get(r.subjectRef) ?? new Set<string>();
    for (const m of matches) set.add(matchKey(m));
    known.set(r.subjectRef, set);
  }
  return found
    .map((f) => ({ ...f, matches: f.matches.filter((m) => !known.get(didOf(f.personId))?.has(matchKey(m))) }))
    .filter((f) => f.matches.length > 0);
}

/**
 * Stores the screening result (the same detail as a screen at KYC approval) and records the hit
 * as approval does: flags, case opened or escalated, `aml.sanctions_hit`, audit entries. Returns
 * whether a case was opened.
 */
async function recordPersonMatch(tx: Tx, run: ScreeningMonitorRun, f: PersonFound): Promise<boolean> {
  const subjectDid = personDidOf(issuerDid(), f.personId);
  const flags = severityOf(f.matches);
  const score = Math.round((f.matches[0]?.score ?? 0) * 100);
  const detail = monitoringResultDetail(run.id, f);
  const result = await tx.screeningResult.create({
    data: {
      orgId: run.orgId,
      subjectType: "person",
      subjectRef: subjectDid,
      provider: SCREENING_PROVIDER,
      severity: flags.severity,
      score,
      labels: [...new Set(f.matches.flatMap((m) => m.topics))],
      sanctionsHit: flags.sanctions,
      pepHit: flags.pep,
      detail: screeningDetailJson(detail),
    },
  });
  // recordScreeningHit locks the person before our audit append locks the chain head (lock order).
  const hit = await recordScreeningHit(tx, {
    orgId: run.orgId,
    personId: f.personId,
    subjectDid,
    outcome: { sanctions: flags.sanctions, pep: flags.pep, severity: flags.severity, score, resultId: result.id },
    actor: MONITOR_ACTOR,
    // The same evidence as a hit at approval: the identity the person was verified with.
    subject: { name: f.query.name, birthDate: f.query.birthDate, country: f.query.country },
  });
  await appendAudit(
    tx,
    { orgId: run.orgId, actor: MONITOR_ACTOR },
    {
      action: "aml.screened",
      subjectType: "person",
      subject: subjectDid,
      data: { resultId: result.id, severity: flags.severity, score, sanctions: flags.sanctions, pep: flags.pep, runId: run.id },
    },
  );
  return !!hit?.opened;
}

// ---- accounts ----

async function accountSource(db: Db, run: ScreeningMonitorRun): Promise<AccountSource> {
  if (run.kind === "list_change" && run.listVersionId) {
    const v = await db.screeningListVersion.findUniqueOrThrow({ where: { id: run.listVersionId }, select: { orgId: true } });
    if (v.orgId && v.orgId !== run.orgId) return { kind: "changed", labels: new Map() };
    const rows = await changedAccountLabels(db, run.listVersionId, run.previousVersionId);
    return { kind: "changed", labels: new Map(rows.map((r) => [r.chainAccount, r])) };
  }
  return { kind: "all" };
}

type AccountRow = { id: string; name: string };

/** The next accounts bound to a person (a binding not revoked), in id order after `cursor`. */
function accountBatch(db: Db, orgId: string, cursor: string | null, size: number): Promise<AccountRow[]> {
  return db.$queryRaw<AccountRow[]>`
    SELECT a.id::text, a.name FROM accounts a
    WHERE a."orgId" = ${orgId}::uuid AND (${cursor}::uuid IS NULL OR a.id > ${cursor}::uuid)
      AND EXISTS (SELECT 1 FROM account_bindings b WHERE b."accountId" = a.id AND b."orgId" = ${orgId}::uuid AND b."revokedAt" IS NULL)
    ORDER BY a.id
    LIMIT ${size}`;
}

type AccountFound = {
  chainAccount: string;
  labels: string[];
  score: number;
  hits: { listVersionId: string; labels: string[]; score: number }[];
};

/** Accounts of the batch with labels the organization has not been told about (its latest result differs). */
async function newAccountLabels(db: Db, orgId: string, source: AccountSource, batch: AccountRow[]): Promise<AccountFound[]> {
  const names = batch.map((a) => a.name);
  let hits: { listVersionId: string; chainAccount: string; labels: string[]; score: number }[];
  if (source.kind === "changed") {
    hits = names.flatMap((n) => {
      const h = source.labels.get(n);
      return h ? [{ ...h, chainAccount: n }] : [];
    });
  } else {
    const versions = await db.screeningListVersion.findMany({
      where: { active: true, format: "labels", ...visibleLists(orgId) },
      select: { id: true },
    });
    hits = await db.screeningAccountLabel.findMany({
      where: { chainAccount: { in: names }, listVersionId: { in: versions.map((v) => v.id) } },
      select: { listVersionId: true, chainAccount: true, labels: true, score: true },
    });
  }
  if (hits.length === 0) return [];
  const byAccount = new Map<string, typeof hits>();
  for (const h of hits) byAccount.set(h.chainAccount, [...(byAccount.get(h.chainAccount) ?? []), h]);
  const latest = await db.screeningResult.findMany({
    where: { orgId, subjectType: "account", subjectRef: { in: [...byAccount.keys()] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { subjectRef: true, labels: true, score: true },
  });
  const told = new Map<string, string>();
  for (const r of latest) if (!told.has(r.subjectRef)) told.set(r.subjectRef, `${[...r.labels].sort().join(";")}|${r.score}`);
  const out: AccountFound[] = [];
  for (const [chainAccount, hs] of byAccount) {
    const labels = [...new Set(hs.flatMap((h) => h.labels))].sort();
    const score = hs.reduce((max, h) => Math.max(max, h.score), 0);
    if (told.get(chainAccount) === `${labels.join(";")}|${score}`) continue;
    out.push({ chainAccount, labels, score, hits: hs.map(({ listVersionId, labels, score }) => ({ listVersionId, labels, score })) });
  }
  return out;
}

/** Stores an account's new labels as a screen-account would, and audits it. */
async function recordAccountLabels(tx: Tx, run: ScreeningMonitorRun, f: AccountFound): Promise<void> {
  const severity = f.labels.length > 0 ? "medium" : null;
  const result = await tx.screeningResult.create({
    data: {
      orgId: run.orgId,
      subjectType: "account",
      subjectRef: f.chainAccount,
      provider: "account-labels",
      severity,
      score: f.score,
      labels: f.labels,
      detail: { hits: f.hits, monitoringRunId: run.id },
    },
  });
  await appendAudit(
    tx,
    { orgId: run.orgId, actor: MONITOR_ACTOR },
    {
      action: "aml.account_screened",
      subjectType: "account",
      subject: f.chainAccount,
      data: { resultId: result.id, score: f.score, labels: f.labels, severity, runId: run.id },
    },
  );
}
