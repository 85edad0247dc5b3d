import type { Db } from "../../db/client";
import { appendAudit, canonicalText } from "./chain";
import { ENTRY_COLUMNS, type EntryRow } from "./verify";

/**
 * For tests: an entry's hashed fields as its stored bytes (`canonical`) hold them, `data` as its
 * text and `createdAt` as ISO 8601, as they appear in the hashed bytes.
 */
export type StoredFields = {
  orgId: string;
  seq: number;
  actor: string;
  action: string;
  subjectType: string | null;
  subject: string | null;
  data: string;
  createdAt: string;
  prevHash: string;
};

/**
 * For tests: changes an entry as someone with SQL access can now that every hashed column is
 * generated from `canonical` (a column itself cannot be updated): rewrites the stored bytes with
 * some fields changed, in the same layout, keeping the hash. The readable columns follow.
 */
export async function rewriteEntry(db: Db, id: string, change: Partial<StoredFields>): Promise<StoredFields> {
  const [row] = await db.$queryRawUnsafe<EntryRow[]>(`SELECT ${ENTRY_COLUMNS}, "orgId"::text FROM audit_entries WHERE id = $1::uuid`, id);
  if (!row) throw new Error(`no audit entry ${id}`);
  const values = Object.values(row) as unknown[];
  const [, seq, prevHash, , actor, action, subjectType, subject, createdAt, data, orgId] = values as [...EntryRow, string];
  const fields: StoredFields = { orgId, seq, actor, action, subjectType, subject, data, createdAt, prevHash, ...change };
  await db.$executeRaw`UPDATE audit_entries SET canonical = ${canonicalText(fields, fields.createdAt, fields.data)} WHERE id = ${id}::uuid`;
  return fields;
}

/** For tests: `n` entries appended one transaction each by a test actor, read back in chain order. */
export async function appendMany(db: Db, orgId: string, n: number) {
  for (let i = 0; i < n; i++) {
    await db.$transaction((tx) =>
      appendAudit(tx, { orgId, actor: "system:audit-test" }, { action: "test.step", subjectType: "step", subject: String(i), data: { i } }),
    );
  }
  return db.auditEntry.findMany({ where: { orgId }, orderBy: { seq: "asc" } });
}

/**
 * For tests: a different value, as SQL, for each readable column an UPDATE could target (seq and
 * orgId are left to each test: moving an entry is a gap in the chain, not a changed entry).
 */
export const READABLE_COLUMN_CHANGES: Record<string, string> = {
  actor: "'member:someone@example.test'",
  action: "'test.innocent'",
  subjectType: "'other'",
  subject: "'x'",
  data: `'{"i": 7}'::json`,
  createdAt: `"createdAt" - interval '1 day'`,
  prevHash: `'${"f".repeat(64)}'`,
};
