import { openStored, sealForPerson, sealWithKey } from "../../crypto/person-box";
import { type DbOrTx, Prisma } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
/** What a person is screened with: the verified name, birth date and country (upper case). */
export type SubjectQuery = { name: string; birthDate: string | null; country: string | null };

/**
 * Keeps the identity a person was screened with at KYC approval, sealed under the person's own
 * data key (crypto/person-box.ts, destroyed by erasure), so ongoing
 * monitoring can screen the same person again when a list changes. The name is kept as verified,
 * not normalised, so a re-screen normalises it with the matcher of the day; a later approval
 * replaces it. Never logged, never returned by any API.
 */
export async function rememberScreeningSubject(db: DbOrTx, input: SubjectInput): Promise<void> {
  const query = subjectQuery(input);
  if (!query) return;
  const querySealed = await sealForPerson(db, { id: input.personId, orgId: input.orgId }, JSON.stringify(query));
  if (!querySealed) return; // erased: nothing is kept for them
  await db.screeningSubject.upsert({
    where: { personId: input.personId },
    create: { personId: input.personId, orgId: input.orgId, querySealed },
    update: { querySealed },
  });
}

type SubjectInput = { orgId: string; personId: string; name: string; birthDate?: string | null; country?: string | null };

function subjectQuery(input: SubjectInput): SubjectQuery | null {
  const name = input.name.trim();
  return name ? { name, birthDate: input.birthDate ?? null, country: input.country?.toUpperCase() ?? null } : null;
}

/**
 * rememberScreeningSubject as a statement the caller runs with its own writes, sealed under the
 * person's data key the caller holds (a KYC review's one grouped statement); null when there is
 * nothing to keep (no name, or no key: an erased person).
 */
export function screeningSubjectUpsertSql(input: SubjectInput, key: Buffer | null, at: Date): Prisma.Sql | null {
  const query = subjectQuery(input);
  if (!query || !key) return null;
  const querySealed = sealWithKey(key, input.personId, JSON.stringify(query));
  return Prisma.sql`INSERT INTO screening_subjects ("personId", "orgId", "querySealed", "createdAt", "updatedAt")
    VALUES (${input.personId}::uuid, ${input.orgId}::uuid, ${querySealed}, ${utcTimestamp(at)}, ${utcTimestamp(at)})
    ON CONFLICT ("personId") DO UPDATE SET "querySealed" = EXCLUDED."querySealed", "updatedAt" = EXCLUDED."updatedAt"`;
}

/**
 * Opens a sealed subject with the person's sealed data key (`person_keys.keySealed`; subjects
 * written before person keys are sealed with BI_ENCRYPTION_KEY alone). Null when it cannot be
 * opened (a destroyed or retired key), so the person is skipped.
 */
export function openSubject(sealed: string, personKeySealed?: string | null): SubjectQuery | null {
  const text = openStored(sealed, personKeySealed);
  if (text === null) return null;
  try {
    const q = JSON.parse(text) as SubjectQuery;
    return typeof q.name === "string" && q.name.length > 0 ? q : null;
  } catch {
    return null;
  }
}
