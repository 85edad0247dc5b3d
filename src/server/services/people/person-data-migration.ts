import { sealForPerson } from "../../crypto/person-box";
import { open } from "../../crypto/secret-box";
import type { Db } from "../../db/client";
import { CLEAR_START, type ClearCursor, type ClearRemaining, clearRemaining, sealClearBatch } from "./person-data-migration-clear";

/**
 * Re-seals personal values written before person data keys existed (sealed with
 * BI_ENCRYPTION_KEY alone) under each person's own key (docs/data-protection.md,
 * "Crypto-shredding"): the identity kept for re-screening (`screening_subjects.querySealed`) and
 * the subject frozen in AML evidence (`aml_case_hits.evidence.subject.sealed`). And seals those
 * written in clear before they were sealed (person-data-migration-clear.ts): what officers wrote
 * on a person's AML cases, their KYC sessions' client addresses, provider references and hosted
 * links, their verified phone and provider reference, accounts' contacts (under the account's own
 * key), the addresses of one-time codes and proof tokens, and risk data as keyed hashes.
 *
 * Safe while the service serves: readers open both forms, and each row is changed by a
 * compare-and-set on the value read, so a newer write in between is never overwritten (that row
 * is left for the next pass, which finds it already done). Resumable: a value already under a
 * person key (`p1.` prefix) is never touched again, so a pass stopped anywhere simply continues.
 * A value that cannot be opened (a retired key id) is left as it is and counted as unreadable.
 */

type LegacySubject = { personId: string; orgId: string; querySealed: string };
type LegacyEvidence = { id: string; orgId: string; personId: string; sealed: string };
type Remaining = { subjects: number; evidence: number } & ClearRemaining;
export type MigrationProgress = { resealed: number; unreadable: number; remaining: Remaining };

const openLegacy = (value: string) => {
  try {
    return open(value);
  } catch {
    return null;
  }
};

/** Re-seals one subject if its stored value is still `row.querySealed`; whether it changed it. */
export async function resealSubject(db: Db, row: LegacySubject): Promise<boolean> {
  const text = openLegacy(row.querySealed);
  if (text === null) return false;
  const sealed = await sealForPerson(db, { id: row.personId, orgId: row.orgId }, text);
  // Erased meanwhile: nothing is kept for them.
  if (sealed === null) return (await db.$executeRaw`DELETE FROM screening_subjects WHERE "personId" = ${row.personId}::uuid`) > 0;
  const changed = await db.$executeRaw`
    UPDATE screening_subjects SET "querySealed" = ${sealed}, "updatedAt" = now()
    WHERE "personId" = ${row.personId}::uuid AND "querySealed" = ${row.querySealed}`;
  return changed > 0;
}

/** Re-seals one hit's evidence subject if it is still `row.sealed`; whether it changed it. */
export async function resealEvidence(db: Db, row: LegacyEvidence): Promise<boolean> {
  const text = openLegacy(row.sealed);
  if (text === null) return false;
  const sealed = await sealForPerson(db, { id: row.personId, orgId: row.orgId }, text);
  const changed = await db.$executeRaw`
    UPDATE aml_case_hits SET evidence = jsonb_set(evidence, '{subject,sealed}', ${sealed === null ? "null" : JSON.stringify(sealed)}::jsonb)
    WHERE id = ${row.id}::uuid AND evidence->'subject'->>'sealed' = ${row.sealed}`;
  return changed > 0;
}

async function remaining(db: Db): Promise<Remaining> {
  const [r] = await db.$queryRaw<{ subjects: number; evidence: number }[]>`
    SELECT (SELECT count(*)::int FROM screening_subjects WHERE "querySealed" NOT LIKE 'p1.%') AS subjects,
           (SELECT count(*)::int FROM aml_case_hits h JOIN aml_cases c ON c.id = h."caseId"
             WHERE c."personId" IS NOT NULL AND h.evidence->'subject'->>'sealed' NOT LIKE 'p1.%') AS evidence`;
  return { ...r!, ...(await clearRemaining(db)) };
}

const total = (r: Remaining) => Object.values(r).reduce((n, v) => n + v, 0);

export type Cursor = { subject: string | null; evidence: string | null; clear: ClearCursor };

/**
 * One batch: up to `batch` legacy subjects, `batch` legacy evidence rows and `batch` rows of each
 * kind still in clear after `after` (keyset order), each re-sealed in its own statement. Returns
 * what it did and where the next batch starts (null once all are exhausted): unreadable rows are
 * walked past, not read again.
 */
export async function migratePersonDataBatch(
  db: Db,
  after: Cursor,
  batch = 200,
): Promise<{ resealed: number; unreadable: number; next: Cursor | null }> {
  let resealed = 0;
  let unreadable = 0;
  const subjects = await db.$queryRaw<LegacySubject[]>`
    SELECT "personId"::text AS "personId", "orgId"::text AS "orgId", "querySealed" FROM screening_subjects
    WHERE "querySealed" NOT LIKE 'p1.%' AND (${after.subject}::uuid IS NULL OR "personId" > ${after.subject}::uuid)
    ORDER BY "personId" LIMIT ${batch}`;
  for (const row of subjects) {
    if (openLegacy(row.querySealed) === null) unreadable++;
    else if (await resealSubject(db, row)) resealed++;
  }
  const evidence = await db.$queryRaw<LegacyEvidence[]>`
    SELECT h.id::text AS id, h."orgId"::text AS "orgId", c."personId"::text AS "personId", h.evidence->'subject'->>'sealed' AS sealed
    FROM aml_case_hits h JOIN aml_cases c ON c.id = h."caseId"
    WHERE c."personId" IS NOT NULL AND h.evidence->'subject'->>'sealed' NOT LIKE 'p1.%'
      AND (${after.evidence}::uuid IS NULL OR h.id > ${after.evidence}::uuid)
    ORDER BY h.id LIMIT ${batch}`;
  for (const row of evidence) {
    if (openLegacy(row.sealed) === null) unreadable++;
    else if (await resealEvidence(db, row)) resealed++;
  }
  const clear = await sealClearBatch(db, after.clear, batch);
  const done = subjects.length < batch && evidence.length < batch && !clear.more;
  return {
    resealed: resealed + clear.resealed,
    unreadable: unreadable + clear.unreadable,
    next: done
      ? null
      : {
          subject: subjects.at(-1)?.personId ?? after.subject,
          evidence: evidence.at(-1)?.id ?? after.evidence,
          clear: clear.next,
        },
  };
}

/** Every batch until none is left; `onBatch` hears the progress after each (the operator script prints it, the worker logs it). */
export async function migratePersonData(
  db: Db,
  opts: { batch?: number; onBatch?: (p: MigrationProgress) => void } = {},
): Promise<MigrationProgress> {
  let cursor: Cursor | null = { subject: null, evidence: null, clear: CLEAR_START };
  let resealed = 0;
  let unreadable = 0;
  while (cursor) {
    const step = await migratePersonDataBatch(db, cursor, opts.batch);
    resealed += step.resealed;
    unreadable += step.unreadable;
    cursor = step.next;
    opts.onBatch?.({ resealed, unreadable, remaining: await remaining(db) });
  }
  return { resealed, unreadable, remaining: await remaining(db) };
}

let finished = false;

/**
 * The worker's job: migrates until nothing legacy is left, then does nothing more for the life
 * of the process (every new value is written under a person key).
 */
export async function personDataMigrationJob(db: Db, log: (p: MigrationProgress) => void): Promise<void> {
  if (finished) return;
  const before = await remaining(db);
  if (total(before) === 0) {
    finished = true;
    return;
  }
  const done = await migratePersonData(db, { onBatch: log });
  if (total(done.remaining) === done.unreadable) finished = true;
}
