import { randomUUID } from "node:crypto";
import { open, seal } from "../crypto/secret-box";
import { type DbOrTx, Prisma, rawQuery } from "../db/client";
import { utcTimestamp } from "../db/sql";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this with no answer is taken to be abandoned by a crashed instance. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;

export type Claim =
  | { kind: "claimed"; id: string }
  | { kind: "replay"; status: number; body: string }
  | { kind: "mismatch" }
  | { kind: "in_progress" };

type ClaimInput = { scope: string; orgId: string | null; key: string; route: string; requestHash: string };

export async function claimIdempotencyKey(db: DbOrTx, input: ClaimInput, now = new Date()): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    // One statement on every request that sends a key: it stays off the ORM (rawQuery).
    const [row] = await rawQuery<{ id: string }>(
      db,
      Prisma.sql`INSERT INTO idempotency_records (id, "orgId", scope, key, route, "requestHash", "createdAt", "expiresAt")
                 VALUES (${randomUUID()}::uuid, ${input.orgId}::uuid, ${input.scope}, ${input.key}, ${input.route}, ${input.requestHash},
                         ${utcTimestamp(now)}, ${utcTimestamp(new Date(now.getTime() + IDEMPOTENCY_TTL_MS))})
                 ON CONFLICT (scope, key) DO NOTHING
                 RETURNING id::text`,
    );
    if (row) return { kind: "claimed", id: row.id };
    const existing = await db.idempotencyRecord.findUnique({ where: { scope_key: { scope: input.scope, key: input.key } } });
    if (!existing) continue; // released meanwhile: claim again
    if (existing.expiresAt <= now) {
      // Past the replay window the key is purged and starts a new operation.
      await db.idempotencyRecord.deleteMany({ where: { id: existing.id, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.requestHash !== input.requestHash) return { kind: "mismatch" };
    if (existing.state === "completed")
      return { kind: "replay", status: existing.responseStatus!, body: unsealBody(existing.responseBody) };
    if (now.getTime() - existing.createdAt.getTime() > ABANDONED_AFTER_MS) {
      const taken = await db.idempotencyRecord.updateMany({
        where: { id: existing.id, state: "in_progress", createdAt: existing.createdAt },
        data: { createdAt: now },
      });
      if (taken.count === 1) return { kind: "claimed", id: existing.id };
    }
    return { kind: "in_progress" };
  }
  return { kind: "in_progress" };
}

/**
 * Stored answers are encrypted at rest: some replayable answers carry secrets shown once (the API
 * key and console password of a Builder checkout), which must not sit readable in the database.
 */
export async function completeIdempotencyKey(db: DbOrTx, id: string, status: number, body: string): Promise<void> {
  await rawQuery(
    db,
    Prisma.sql`UPDATE idempotency_records SET state = 'completed', "responseStatus" = ${status}, "responseBody" = ${seal(body)}
               WHERE id = ${id}::uuid RETURNING 1`,
  );
}

/** Rows written before answers were sealed hold the JSON itself. */
const unsealBody = (stored: string | null) => (stored === null ? "" : stored.startsWith("v1.") ? open(stored) : stored);

export async function releaseIdempotencyKey(db: DbOrTx, id: string): Promise<void> {
  await db.idempotencyRecord.deleteMany({ where: { id, state: "in_progress" } });
}

export async function purgeExpiredIdempotencyKeys(db: DbOrTx, now = new Date()): Promise<number> {
  const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
