import type pg from "pg";
import Cursor from "pg-cursor";
import type { ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { type Db, Prisma, type Tx, withPgSession } from "../../db/client";
import { canonicalText, entryHash, GENESIS_HASH, type HashFields } from "./chain";

export type VerifyResult = {
  valid: boolean;
  entries: number;
  headHash: string;
  firstInvalidEntryId?: string;
  reason?: string;
};

/** id, seq, prevHash, hash, actor, action, subjectType, subject, createdAt (ISO), data (its stored text). */
export type EntryRow = [string, number, string, string, string, string, string | null, string | null, string, string];
type Head = { seq: number; hash: string } | null;

/** One statement's columns, in EntryRow order; text only, so nothing is decoded that is not checked. */
export const ENTRY_COLUMNS = `id::text, seq, "prevHash", hash, actor, action, "subjectType", subject,
  to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), data::text`;
const BATCH = 5_000;

/**
 * Recomputes the organization's whole chain from one REPEATABLE READ snapshot: every hash, every
 * link, the sequence without gaps, and the head row (which catches removal of the newest entries).
 * Names the first bad entry.
 *
 * Each entry's hashed bytes are rebuilt from its columns by concatenation: `data` keeps its JCS
 * text byte for byte, so no entry is re-canonicalised, and a changed column is a changed hash.
 * Only an entry whose stored `data` is not its JCS text (appended before it was kept so) is
 * canonicalised from its meaning, as every entry used to be. On PostgreSQL the rows stream through
 * one cursor outside the ORM; the embedded database is read in pages.
 */
export async function verifyChain(db: Db, orgId: string): Promise<VerifyResult> {
  const streamed = await withPgSession((client) => verifyStreaming(client, orgId));
  if (streamed) return streamed;
  return db.$transaction((tx) => verifyPaged(tx, orgId), { isolationLevel: "RepeatableRead", timeout: 120_000, maxWait: 10_000 });
}

async function verifyStreaming(client: pg.PoolClient, orgId: string): Promise<VerifyResult> {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    const head = (await client.query<{ seq: number; hash: string }>(`SELECT seq, hash FROM audit_heads WHERE "orgId" = $1`, [orgId]))
      .rows[0];
    const checker = new ChainChecker(orgId);
    const cursor = client.query(
      new Cursor<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM audit_entries WHERE "orgId" = $1 AND seq >= 1 ORDER BY seq`, [orgId], {
        rowMode: "array",
      }),
    );
    let failed: VerifyResult | null = null;
    // The next batch is asked for before this one is checked, so PostgreSQL produces rows while
    // this process hashes (the two alternate otherwise).
    let next = cursor.read(BATCH);
    for (;;) {
      const rows = await next;
      if (rows.length === 0) break;
      next = cursor.read(BATCH);
      failed = checker.check(rows);
      if (failed) {
        await next.catch(() => undefined);
        break;
      }
    }
    await cursor.close();
    const stray = (await client.query<{ id: string }>(`SELECT id::text FROM audit_entries WHERE "orgId" = $1 AND seq < 1 LIMIT 1`, [orgId]))
      .rows[0];
    return failed ?? checker.finish(head ?? null, stray?.id);
  } finally {
    await client.query("COMMIT");
  }
}

async function verifyPaged(tx: Tx, orgId: string): Promise<VerifyResult> {
  const head = await tx.auditHead.findUnique({ where: { orgId }, select: { seq: true, hash: true } });
  const checker = new ChainChecker(orgId);
  for (let from = 1; ; from += BATCH) {
    const page = await tx.$queryRaw<Record<string, unknown>[]>(
      Prisma.sql`SELECT ${Prisma.raw(ENTRY_COLUMNS)} FROM audit_entries WHERE "orgId" = ${orgId}::uuid AND seq >= ${from} ORDER BY seq LIMIT ${BATCH}`,
    );
    const failed = checker.check(page.map((r) => Object.values(r) as EntryRow));
    if (failed) return failed;
    if (page.length < BATCH) break;
  }
  const stray = await tx.auditEntry.findFirst({ where: { orgId, seq: { lt: 1 } }, select: { id: true } });
  return checker.finish(head, stray?.id);
}

/**
 * Walks entries in seq order from `expectedSeq`, each linking to the one before (the first to
 * `prevHash`); the first bad one ends the walk. Verification and exports both check with it.
 */
export class ChainChecker {
  private count = 0;

  constructor(
    private readonly orgId: string,
    private expectedSeq = 1,
    private prevHash = GENESIS_HASH,
  ) {}

  check(rows: EntryRow[]): VerifyResult | null {
    for (const [id, seq, prevHash, hash, actor, action, subjectType, subject, createdAt, dataText] of rows) {
      if (seq !== this.expectedSeq) return this.bad(id, `entry ${this.expectedSeq} is missing before this entry`);
      if (prevHash !== this.prevHash) return this.bad(id, "prevHash does not match the previous entry's hash");
      const fields = { orgId: this.orgId, seq, actor, action, subjectType, subject, prevHash };
      if (!hashes(fields, createdAt, dataText, hash)) return this.bad(id, "hash does not match the entry's contents");
      this.prevHash = hash;
      this.expectedSeq++;
      this.count++;
    }
    return null;
  }

  private bad(firstInvalidEntryId: string, reason: string): VerifyResult {
    return { valid: false, entries: this.count, headHash: this.prevHash, firstInvalidEntryId, reason };
  }

  finish(head: Head, strayId: string | undefined): VerifyResult {
    const entries = this.count;
    const headHash = this.prevHash;
    // appendAudit never writes seq < 1; the walk starts at 1, so such entries are looked for apart.
    if (strayId) return { valid: false, entries, headHash, firstInvalidEntryId: strayId, reason: "entry has a sequence number below 1" };
    const headSeq = head?.seq ?? 0;
    if (headSeq !== entries) {
      return { valid: false, entries, headHash, reason: `the chain head records ${headSeq} entries but ${entries} are present` };
    }
    if (head && headSeq > 0 && head.hash !== headHash) {
      return { valid: false, entries, headHash, reason: "the chain head's hash does not match the last entry" };
    }
    return { valid: true, entries, headHash };
  }
}

type FixedFields = Omit<HashFields, "createdAt" | "data">;

function hashes(fields: FixedFields, createdAtIso: string, dataText: string, hash: string): boolean {
  // The stored bytes first: the hashed ones for every entry appended since data kept its JCS text.
  if (sha256Hex(canonicalText(fields, createdAtIso, dataText)) === hash) return true;
  // Otherwise by meaning, as every entry used to be checked (only for entries from before that).
  try {
    return entryHash({ ...fields, createdAt: new Date(createdAtIso), data: JSON.parse(dataText) }) === hash;
  } catch {
    return false;
  }
}

/** Verifies the caller's organization's chain (a read: it writes no audit entry of its own). */
export const verifyAudit = (ctx: ServiceContext) => verifyChain(ctx.db, ctx.org.id);

/** The public shape of a row (API list and export artifact), `data` parsed from its stored text. */
export const entryRowView = ([id, seq, prevHash, hash, actor, action, subjectType, subject, createdAt, dataText]: EntryRow) => ({
  id,
  seq,
  actor,
  action,
  subjectType,
  subject,
  data: JSON.parse(dataText) as Record<string, unknown>,
  createdAt,
  prevHash,
  hash,
});
