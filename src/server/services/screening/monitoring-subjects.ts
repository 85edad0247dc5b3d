import { open, seal } from "../../crypto/secret-box";
import type { DbOrTx } from "../../db/client";
/** What a person is screened with: the verified name, birth date and country (upper case). */
export type SubjectQuery = { name: string; birthDate: string | null; country: string | null };

/**
 * Keeps the identity a person was screened with at KYC approval, sealed (AES-256-GCM), so ongoing
 * monitoring can screen the same person again when a list changes. The name is kept as verified,
 * not normalised, so a re-screen normalises it with the matcher of the day; a later approval
 * replaces it. Never logged, never returned by any API.
 */
export async function rememberScreeningSubject(
  db: DbOrTx,
  input: { orgId: string; personId: string; name: string; birthDate?: string | null; country?: string | null },
): Promise<void> {
  const name = input.name.trim();
  if (!name) return;
  const query: SubjectQuery = { name, birthDate: input.birthDate ?? null, country: input.country?.toUpperCase() ?? null };
  const querySealed = seal(JSON.stringify(query));
  await db.screeningSubject.upsert({
    where: { personId: input.personId },
    create: { personId: input.personId, orgId: input.orgId, querySealed },
    update: { querySealed },
  });
}

/** Opens a sealed subject; null when it cannot be opened (a retired key), so the person is skipped. */
export function openSubject(sealed: string): SubjectQuery | null {
  try {
    const q = JSON.parse(open(sealed)) as SubjectQuery;
    return typeof q.name === "string" && q.name.length > 0 ? q : null;
  } catch {
    return null;
  }
}
