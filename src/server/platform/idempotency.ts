import { randomUUID } from "node:crypto";
import superjson from "superjson";
import { open, seal } from "../crypto/secret-box";
import { type DbOrTx, Prisma, rawQuery } from "../db/client";
import { utcTimestamp } from "../db/sql";
import { isAppError } from "../errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this with no answer is taken to be abandoned by a crashed instance. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;

/** One use of an Idempotency-Key: whose key (scope), the key, and what the request was. */
export type IdempotencyRequest = { scope: string; orgId: string | null; key: string; route: string; requestHash: string };

/**
 * What a completed key answers with. `value`: the operation's result as the domain returned it,
 * for each door to render its own way (the console's door and recovery store these). `response`:
 * an answer a door rendered itself (/v1 keeps its status and exact bytes), and every row written
 * before values were stored (the console's held its superjson text with status 200).
 */
export type StoredAnswer = { kind: "value"; value: unknown } | { kind: "response"; status: number; body: string };

/** What became of a request that sent a key. */
export type IdempotentOutcome<T> =
  /** The key was new (or free again): the operation ran and this is its result. */
  | { kind: "ran"; value: T }
  /** The key was completed before: the stored answer, to give again. */
  | { kind: "replay"; answer: StoredAnswer }
  /** The key was used for another request. */
  | { kind: "mismatch" }
  /** The key's first request is still running, or its outcome is still pending. */
  | { kind: "in_progress" };

type Claim = { kind: "claimed"; id: string } | Exclude<IdempotentOutcome<never>, { kind: "ran" }>;

async function claimKey(db: DbOrTx, input: IdempotencyRequest, now: Date): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    // One statement on every request that sends a key: it stays off the ORM (rawQuery).
    const [row] = await rawQuery<{ id: string }>(
      db,
      Prisma.sql`INSERT INTO idempotency_records (id, "orgId", scope, key, route, "requestHash", "createdAt", "expiresAt")
                 VALUES (${randomUUID()}::uuid, ${input.orgId}::uuid, ${input.scope}, ${input.key}, ${input.route}, ${input.requestHash},
                         ${utcTimestamp(now)}, ${utcTimestamp(new Date(now.getTime() + IDEMPOTENCY_TTL_MS))})
                 ON CONFLICT (scope, key) DO NOTHING
                 RETURNING id::text`,
      { prepare: true },
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
    if (existing.state === "completed") return { kind: "replay", answer: storedAnswer(existing.responseStatus, existing.responseBody) };
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
 * A value is kept as superjson (dates stay dates) with no response status: that is how it is told
 * from a rendered answer.
 */
async function storeAnswer(db: DbOrTx, id: string, answer: StoredAnswer): Promise<void> {
  const [status, body] = answer.kind === "value" ? [null, superjson.stringify(answer.value)] : [answer.status, answer.body];
  await rawQuery(
    db,
    Prisma.sql`UPDATE idempotency_records SET state = 'completed', "responseStatus" = ${status}::int, "responseBody" = ${seal(body)}
               WHERE id = ${id}::uuid RETURNING 1`,
    { prepare: true },
  );
}

/** Rows written before answers were sealed hold the JSON itself. */
const unsealBody = (stored: string | null) => (stored === null ? "" : stored.startsWith("v1.") ? open(stored) : stored);

function storedAnswer(status: number | null, body: string | null): StoredAnswer {
  const text = unsealBody(body);
  return status === null ? { kind: "value", value: superjson.parse(text) } : { kind: "response", status, body: text };
}

/**
 * True when the operation may still complete in the background (an AppError marked
 * `outcomePending`, or an error a door wrapped it in, as tRPC does): its key stays claimed.
 */
function outcomePending(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (isAppError(e)) return !!e.outcomePending;
  return false;
}

export type RunOptions<T> = {
  /**
   * What a completed run keeps for replays: by default its value; a door may keep the answer it
   * rendered instead, or nothing (null), which frees the key as a failure does.
   */
  store?: (value: T) => StoredAnswer | null;
  now?: Date;
};

/**
 * The Idempotency-Key protocol, for every door: the first request with a key runs `run` (given
 * the claim's id, which an operation that may finish later keeps); a repeat of the same request
 * within 24 hours replays the stored answer; another request under the key is a mismatch; a repeat
 * while the first still runs is in progress. The claim is a unique row, so concurrent duplicates
 * never run twice. A run that throws did nothing (services roll back), so its key is freed for a
 * corrected retry, unless its outcome is pending: then the key stays claimed until recovery
 * completes it (`completeIdempotent`) or frees it.
 */
export async function runIdempotent<T>(
  db: DbOrTx,
  request: IdempotencyRequest,
  run: (claimId: string) => Promise<T>,
  opts: RunOptions<T> = {},
): Promise<IdempotentOutcome<T>> {
  const claim = await claimKey(db, request, opts.now ?? new Date());
  if (claim.kind !== "claimed") return claim;
  let value: T;
  try {
    value = await run(claim.id);
  } catch (err) {
    if (!outcomePending(err)) await releaseIdempotencyKey(db, claim.id);
    throw err;
  }
  const answer = opts.store ? opts.store(value) : { kind: "value" as const, value };
  if (answer) await storeAnswer(db, claim.id, answer);
  else await releaseIdempotencyKey(db, claim.id);
  return { kind: "ran", value };
}

/**
 * Completes a key whose operation ended after its request did (recovery of an interrupted create),
 * with the operation's result as its request would have returned it; each door renders it.
 */
export async function completeIdempotent(db: DbOrTx, claimId: string, value: unknown): Promise<void> {
  await storeAnswer(db, claimId, { kind: "value", value });
}

/** Frees a claimed key (its operation did nothing), so a retry with it runs. */
export async function releaseIdempotencyKey(db: DbOrTx, id: string): Promise<void> {
  await db.idempotencyRecord.deleteMany({ where: { id, state: "in_progress" } });
}

export async function purgeExpiredIdempotencyKeys(db: DbOrTx, now = new Date()): Promise<number> {
  const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
