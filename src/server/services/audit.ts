import type { AuditEntry } from "@/generated/prisma/client.ts";
import { Prisma, type DbOrTx, type Tx } from "../db/client";
import { sha256Hex } from "../crypto/hash";
import { jcs } from "../crypto/jcs";
import { actorId, type Actor } from "../context";

/** prevHash of the first entry of every chain. */
export const GENESIS_HASH = "0".repeat(64);

export type AuditInput = {
  action: string;
  subjectType?: string;
  subject?: string;
  /** Plain JSON; never secrets or raw personal data (hash or mask them first). */
  data?: Prisma.InputJsonObject;
};

type HashFields = Pick<AuditEntry, "orgId" | "seq" | "actor" | "action" | "subjectType" | "subject" | "prevHash"> & {
  data: unknown;
  createdAt: Date;
};

/** The hash of an entry: SHA-256 over the JCS form of every field but the hash itself. */
export function entryHash(e: HashFields): string {
  return sha256Hex(
    jcs({
      v: 1,
      orgId: e.orgId,
      seq: e.seq,
      actor: e.actor,
      action: e.action,
      subjectType: e.subjectType ?? null,
      subject: e.subject ?? null,
      data: e.data ?? {},
      createdAt: e.createdAt.toISOString(),
      prevHash: e.prevHash,
    }),
  );
}

/**
 * Appends one entry to the organization's chain inside the caller's transaction. The chain head
 * row is locked (FOR UPDATE) until that transaction ends, so concurrent writers queue up and the
 * chain never forks; if the caller rolls back, the entry and the head move roll back with it.
 */
export async function appendAudit(tx: Tx, scope: { orgId: string; actor: Actor | string }, input: AuditInput): Promise<AuditEntry> {
  const { orgId } = scope;
  await tx.$executeRaw`
    INSERT INTO audit_heads ("orgId", seq, hash, "updatedAt") VALUES (${orgId}::uuid, 0, ${GENESIS_HASH}, now())
    ON CONFLICT ("orgId") DO NOTHING`;
  const [head] = await tx.$queryRaw<{ seq: number; hash: string }[]>`
    SELECT seq, hash FROM audit_heads WHERE "orgId" = ${orgId}::uuid FOR UPDATE`;
  const fields: HashFields = {
    orgId,
    seq: head!.seq + 1,
    actor: typeof scope.actor === "string" ? scope.actor : actorId(scope.actor),
    action: input.action,
    subjectType: input.subjectType ?? null,
    subject: input.subject ?? null,
    data: input.data ?? {},
    // Millisecond precision, as stored (timestamptz(3)), so the hash recomputes exactly.
    createdAt: new Date(Date.now()),
    prevHash: head!.hash,
  };
  const hash = entryHash(fields);
  const entry = await tx.auditEntry.create({
    data: { ...fields, data: fields.data as Prisma.InputJsonObject, hash },
  });
  await tx.auditHead.update({ where: { orgId }, data: { seq: fields.seq, hash } });
  return entry;
}

export type VerifyResult = {
  valid: boolean;
  entries: number;
  headHash: string;
  firstInvalidEntryId?: string;
  reason?: string;
};

/**
 * Recomputes the organization's whole chain: every hash, every link, the sequence without gaps,
 * and the head row (which catches removal of the newest entries). Names the first bad entry.
 */
export async function verifyChain(db: DbOrTx, orgId: string): Promise<VerifyResult> {
  const head = await db.auditHead.findUnique({ where: { orgId } });
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  let count = 0;
  let cursor: number | undefined;
  const pageSize = 1000;
  for (;;) {
    const page = await db.auditEntry.findMany({
      where: { orgId, ...(cursor !== undefined ? { seq: { gt: cursor } } : {}) },
      orderBy: { seq: "asc" },
      take: pageSize,
    });
    for (const e of page) {
      const bad = (reason: string): VerifyResult => ({ valid: false, entries: count, headHash: prevHash, firstInvalidEntryId: e.id, reason });
      if (e.seq !== expectedSeq) return bad(e.seq > expectedSeq ? `entry ${expectedSeq} is missing before this entry` : "entry is out of order");
      if (e.prevHash !== prevHash) return bad("prevHash does not match the previous entry's hash");
      if (entryHash(e) !== e.hash) return bad("hash does not match the entry's contents");
      prevHash = e.hash;
      expectedSeq++;
      count++;
    }
    if (page.length < pageSize) break;
    cursor = page[page.length - 1]!.seq;
  }
  const headSeq = head?.seq ?? 0;
  if (headSeq !== count || (head && head.hash !== prevHash && headSeq > 0)) {
    return { valid: false, entries: count, headHash: prevHash, reason: `the chain head records ${headSeq} entries but ${count} are present` };
  }
  return { valid: true, entries: count, headHash: prevHash };
}
