import { randomUUID } from "node:crypto";
import type { AuditEntry } from "@/generated/prisma/client.ts";
import { type Actor, actorId } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import type { DbOrTx, Prisma, Tx } from "../../db/client";
import { hasFreeText } from "./free-text";

// Only type imports from the database layer: entryHash must stay usable by the offline export verifier.

/** prevHash of the first entry of every chain. */
export const GENESIS_HASH = "0".repeat(64);

export type AuditInput = {
  action: string;
  subjectType?: string;
  subject?: string;
  /** Plain JSON; never secrets or raw personal data (hash or mask them first). */
  data?: Prisma.InputJsonObject;
};

export type HashFields = Pick<AuditEntry, "orgId" | "seq" | "actor" | "action" | "subjectType" | "subject" | "prevHash"> & {
  data: unknown;
  createdAt: Date;
};

/**
 * The JCS form (RFC 8785) of an entry's hashed fields, written out with its keys already in JCS
 * order: the same bytes as `jcs({v: 1, orgId, seq, actor, action, subjectType, subject, data,
 * createdAt, prevHash})` (a generated-input test holds them equal), without sorting the fixed keys
 * for every entry. Strings and integers serialise in JCS exactly as JSON.stringify writes them;
 * only `data` goes through the general canonicaliser, unless the caller passes its JCS text
 * (as stored in the `data` column since entries keep it byte for byte).
 */
export function entryCanonical(e: HashFields, dataJcs = jcs(e.data ?? {})): string {
  return canonicalText(e, e.createdAt.toISOString(), dataJcs);
}

/** entryCanonical with the time already written as ISO 8601 (as the verifier reads it). */
export function canonicalText(e: Omit<HashFields, "createdAt" | "data">, createdAtIso: string, dataJcs: string): string {
  const q = JSON.stringify;
  return (
    `{"action":${q(e.action)},"actor":${q(e.actor)},"createdAt":${q(createdAtIso)},"data":${dataJcs},` +
    `"orgId":${q(e.orgId)},"prevHash":${q(e.prevHash)},"seq":${q(e.seq)},"subject":${q(e.subject ?? null)},` +
    `"subjectType":${q(e.subjectType ?? null)},"v":1}`
  );
}

/** The hash of an entry: SHA-256 over the JCS form of every field but the hash itself. */
export function entryHash(e: HashFields): string {
  return sha256Hex(entryCanonical(e));
}

/**
 * Appends one entry to the organization's chain inside the caller's transaction. The chain head
 * row is locked (FOR UPDATE) until that transaction ends, so concurrent writers queue up and the
 * chain never forks; if the caller rolls back, the entry and the head move roll back with it.
 *
 * createdAt never goes backwards along the chain (it is at least the previous entry's, which the
 * head keeps in "updatedAt"), even with clock skew between instances: a time range of the log is
 * then always one contiguous run of seq numbers, which is what exports sign.
 *
 * An entry is stored as its id, the bytes its hash is taken over (`canonical`) and the hash. The
 * database generates every hashed column (orgId, seq, actor, action, subjectType, subject, data,
 * createdAt, prevHash) from `canonical` (migration 20261128220000_audit_hashed_bytes), so no
 * readable column can change unless the hashed bytes do; verify.ts checks that they still are.
 */
export async function appendAudit(tx: Tx, scope: { orgId: string; actor: Actor | string }, input: AuditInput): Promise<AuditEntry> {
  const { orgId } = scope;
  // One round trip creates the head if absent, locks it and reads it; a second writes the entry and
  // moves the head. The lock is then held for one round trip and the COMMIT.
  let data = (input.data ?? {}) as Record<string, unknown>;
  if (hasFreeText(data)) {
    // Loaded here only: the offline export verifier imports this file for entryHash alone.
    const { sealPersonalText } = await import("./personal-text");
    data = await sealPersonalText(tx, orgId, input, data);
  }
  const head = await readHead(tx, orgId);
  const fields: HashFields = {
    orgId,
    seq: head.seq + 1,
    actor: typeof scope.actor === "string" ? scope.actor : actorId(scope.actor),
    action: input.action,
    subjectType: input.subjectType ?? null,
    subject: input.subject ?? null,
    data,
    // Millisecond precision, as stored (timestamptz(3)), so the hash recomputes exactly.
    createdAt: new Date(Math.max(Date.now(), Math.round(head.lastMs))),
    prevHash: head.hash,
  };
  const canonical = entryCanonical(fields);
  const hash = sha256Hex(canonical);
  const id = randomUUID();
  await tx.$executeRaw`
    WITH entry AS (
      INSERT INTO audit_entries (id, canonical, hash) VALUES (${id}::uuid, ${canonical}, ${hash})
      RETURNING 1)
    UPDATE audit_heads SET seq = ${fields.seq}, hash = ${hash}, "updatedAt" = (${fields.createdAt.toISOString()}::timestamptz AT TIME ZONE 'UTC')
    WHERE "orgId" = ${orgId}::uuid AND EXISTS (SELECT 1 FROM entry)`;
  return { ...fields, id, canonical, data: fields.data as AuditEntry["data"], hash };
}

export type ChainHead = { seq: number; hash: string; lastMs: number };

/**
 * The organization's chain head, created at genesis when it has none yet. Inside a transaction
 * this also locks it until that transaction ends (ON CONFLICT DO UPDATE takes the row lock, as
 * FOR UPDATE would). "updatedAt" is a UTC timestamp without zone (as Prisma writes it); epoch
 * arithmetic keeps it zone-free.
 */
export async function readHead(db: DbOrTx, orgId: string): Promise<ChainHead> {
  const [head] = await db.$queryRaw<ChainHead[]>`
    INSERT INTO audit_heads ("orgId", seq, hash, "updatedAt") VALUES (${orgId}::uuid, 0, ${GENESIS_HASH}, '1970-01-01 00:00:00')
    ON CONFLICT ("orgId") DO UPDATE SET seq = audit_heads.seq
    RETURNING seq, hash, (extract(epoch from "updatedAt") * 1000)::float8 AS "lastMs"`;
  return head!;
}

/** The public shape of an entry (API list and export artifact). */
export const auditEntryView = (e: AuditEntry) => ({
  id: e.id,
  seq: e.seq,
  actor: e.actor,
  action: e.action,
  subjectType: e.subjectType,
  subject: e.subject,
  data: e.data as Record<string, unknown>,
  createdAt: e.createdAt.toISOString(),
  prevHash: e.prevHash,
  hash: e.hash,
});
