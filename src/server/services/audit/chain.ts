import { randomUUID } from "node:crypto";
import type { AuditEntry } from "@/generated/prisma/client.ts";
import { type Actor, actorId, type ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import type { Db, DbOrTx, Prisma, Tx } from "../../db/client";
import { isTransaction } from "../../db/tx";

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
 * only `data` goes through the general canonicaliser.
 */
export function entryCanonical(e: HashFields): string {
  const q = JSON.stringify;
  return (
    `{"action":${q(e.action)},"actor":${q(e.actor)},"createdAt":${q(e.createdAt.toISOString())},"data":${jcs(e.data ?? {})},` +
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
 */
export async function appendAudit(tx: Tx, scope: { orgId: string; actor: Actor | string }, input: AuditInput): Promise<AuditEntry> {
  const { orgId } = scope;
  // One round trip creates the head if absent, locks it and reads it (ON CONFLICT DO UPDATE takes
  // the row lock, as FOR UPDATE would); a second writes the entry and moves the head. The lock is
  // then held for one round trip and the COMMIT, so appends of one organization queue briefly.
  // "updatedAt" is a UTC timestamp without zone (as Prisma writes it); epoch arithmetic keeps it zone-free.
  const [head] = await tx.$queryRaw<{ seq: number; hash: string; lastMs: number }[]>`
    INSERT INTO audit_heads ("orgId", seq, hash, "updatedAt") VALUES (${orgId}::uuid, 0, ${GENESIS_HASH}, '1970-01-01 00:00:00')
    ON CONFLICT ("orgId") DO UPDATE SET seq = audit_heads.seq
    RETURNING seq, hash, (extract(epoch from "updatedAt") * 1000)::float8 AS "lastMs"`;
  const fields: HashFields = {
    orgId,
    seq: head!.seq + 1,
    actor: typeof scope.actor === "string" ? scope.actor : actorId(scope.actor),
    action: input.action,
    subjectType: input.subjectType ?? null,
    subject: input.subject ?? null,
    data: input.data ?? {},
    // Millisecond precision, as stored (timestamptz(3)), so the hash recomputes exactly.
    createdAt: new Date(Math.max(Date.now(), Math.round(head!.lastMs))),
    prevHash: head!.hash,
  };
  const hash = entryHash(fields);
  const id = randomUUID();
  const createdAtIso = fields.createdAt.toISOString();
  await tx.$executeRaw`
    WITH entry AS (
      INSERT INTO audit_entries (id, "orgId", seq, actor, action, "subjectType", subject, data, "createdAt", "prevHash", hash)
      VALUES (${id}::uuid, ${orgId}::uuid, ${fields.seq}, ${fields.actor}, ${fields.action}, ${fields.subjectType}, ${fields.subject},
              ${JSON.stringify(fields.data)}::jsonb, ${createdAtIso}::timestamptz, ${fields.prevHash}, ${hash})
      RETURNING 1)
    UPDATE audit_heads SET seq = ${fields.seq}, hash = ${hash}, "updatedAt" = (${createdAtIso}::timestamptz AT TIME ZONE 'UTC')
    WHERE "orgId" = ${orgId}::uuid AND EXISTS (SELECT 1 FROM entry)`;
  return { ...fields, id, data: fields.data as AuditEntry["data"], hash };
}

export type VerifyResult = {
  valid: boolean;
  entries: number;
  headHash: string;
  firstInvalidEntryId?: string;
  reason?: string;
};

const VERIFY_PAGE = 1000;

/**
 * Recomputes the organization's whole chain: every hash, every link, the sequence without gaps,
 * and the head row (which catches removal of the newest entries). Names the first bad entry.
 * Given the client (not a transaction), it reads one REPEATABLE READ snapshot, so appends
 * committing meanwhile never look like a mismatch between the head and the entries.
 */
export async function verifyChain(db: DbOrTx, orgId: string): Promise<VerifyResult> {
  if (!isTransaction(db)) {
    return (db as Db).$transaction((tx) => verifyChainIn(tx, orgId), {
      isolationLevel: "RepeatableRead",
      timeout: 120_000,
      maxWait: 10_000,
    });
  }
  return verifyChainIn(db, orgId);
}

async function verifyChainIn(db: Tx, orgId: string): Promise<VerifyResult> {
  const head = await db.auditHead.findUnique({ where: { orgId } });
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  let count = 0;
  for (;;) {
    const page = await db.auditEntry.findMany({
      where: { orgId, seq: { gte: expectedSeq } },
      orderBy: { seq: "asc" },
      take: VERIFY_PAGE,
    });
    for (const e of page) {
      const bad = (reason: string): VerifyResult => ({
        valid: false,
        entries: count,
        headHash: prevHash,
        firstInvalidEntryId: e.id,
        reason,
      });
      if (e.seq !== expectedSeq) return bad(`entry ${expectedSeq} is missing before this entry`);
      if (e.prevHash !== prevHash) return bad("prevHash does not match the previous entry's hash");
      if (entryHash(e) !== e.hash) return bad("hash does not match the entry's contents");
      prevHash = e.hash;
      expectedSeq++;
      count++;
    }
    if (page.length < VERIFY_PAGE) break;
  }
  // Entries with seq < 1 are never written by appendAudit; the paged scan above starts at 1, so look for them separately.
  const stray = await db.auditEntry.findFirst({ where: { orgId, seq: { lt: 1 } }, orderBy: { seq: "asc" }, select: { id: true } });
  if (stray)
    return {
      valid: false,
      entries: count,
      headHash: prevHash,
      firstInvalidEntryId: stray.id,
      reason: "entry has a sequence number below 1",
    };
  const headSeq = head?.seq ?? 0;
  if (headSeq !== count) {
    return {
      valid: false,
      entries: count,
      headHash: prevHash,
      reason: `the chain head records ${headSeq} entries but ${count} are present`,
    };
  }
  if (head && headSeq > 0 && head.hash !== prevHash) {
    return { valid: false, entries: count, headHash: prevHash, reason: "the chain head's hash does not match the last entry" };
  }
  return { valid: true, entries: count, headHash: prevHash };
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

/** Verifies the caller's organization's chain (a read: it writes no audit entry of its own). */
export const verifyAudit = (ctx: ServiceContext) => verifyChain(ctx.db, ctx.org.id);
