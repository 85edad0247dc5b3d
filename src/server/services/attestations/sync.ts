import type { Db } from "../../db/client";
import { isAppError } from "../../errors";
import { emitEvent } from "../../platform/outbox";
import type { AttestationPublisher, AttestationRow } from "../../providers/chain/attestation";
import { appendAudit } from "../audit";
import { type AccountTarget, type DesiredAttestation, desiredAttestations, plan, type Step } from "./desired";

/**
 * The attestation worker (docs/api/guides/onchain.md, "Publishing from the service"): takes the
 * accounts marked in attestation_sync (platform/attestation-sync.ts marks them in the transaction
 * of each change), reads what the database says and what the chain holds, sends the actions that
 * take the chain there, and clears the mark only if no newer change came meanwhile. It publishes
 * the database's present state, never a queue of past changes, so actions can never arrive out of
 * order, and a crash anywhere (before sending, after sending, before recording) is caught up by
 * the next pass: the chain is read again and only what is still missing is sent.
 */

const ACTOR = "system:attestations";
/** An account is leased for this long while a worker publishes it (another worker skips it); ATTESTATION_LEASE_MS. */
const LEASE_MS = 60_000;
const MAX_BACKOFF_MS = 15 * 60_000;

export type PublishOutcome = { published: number; inStep: number; failed: number };

type Claimed = { accountId: string; orgId: string; dirtyAt: Date; attempts: number };

async function claim(db: Db, now: Date, batch: number, leaseMs: number): Promise<Claimed[]> {
  return db.$queryRaw<Claimed[]>`
    UPDATE attestation_sync s SET "nextAttemptAt" = ${new Date(now.getTime() + leaseMs)}
    FROM (SELECT "accountId" FROM attestation_sync
          WHERE "dirtyAt" IS NOT NULL AND ("nextAttemptAt" IS NULL OR "nextAttemptAt" <= ${now})
          ORDER BY "dirtyAt" LIMIT ${batch} FOR UPDATE SKIP LOCKED) c
    WHERE s."accountId" = c."accountId"
    RETURNING s."accountId"::text AS "accountId", s."orgId"::text AS "orgId", s."dirtyAt", s.attempts`;
}

/** Sends each step; the last transaction's id (null when nothing had to be sent). */
async function send(publisher: AttestationPublisher, name: string, d: DesiredAttestation | null, steps: Step[]): Promise<string | null> {
  let transactionId: string | null = null;
  for (const step of steps) {
    const sent =
      step === "issue"
        ? await publisher.issue(d!)
        : step === "suspend"
          ? await publisher.suspend(name, d!.suspendReason)
          : step === "reinstate"
            ? await publisher.reinstate(name)
            : step === "revoke"
              ? await publisher.revoke(name, 2)
              : await publisher.remove(name);
    transactionId = sent.transactionId;
  }
  return transactionId;
}

const statusAfter = (d: DesiredAttestation | null) => (d ? d.status : "removed");

/** One pass over the marked accounts whose turn has come: at most `batch` of them. */
export async function publishPending(
  db: Db,
  publisher: AttestationPublisher,
  opts: { now?: () => Date; batch?: number; leaseMs?: number } = {},
): Promise<PublishOutcome> {
  const now = opts.now ?? (() => new Date());
  const claimed = await claim(db, now(), opts.batch ?? 50, opts.leaseMs ?? LEASE_MS);
  const outcome: PublishOutcome = { published: 0, inStep: 0, failed: 0 };
  if (!claimed.length) return outcome;
  const wanted = await desiredAttestations(
    db,
    claimed.map((c) => c.accountId),
  );
  for (const c of claimed) {
    const target = wanted.get(c.accountId);
    try {
      let steps: Step[] = [];
      let transactionId: string | null = null;
      if (target) {
        const current: AttestationRow | null = await publisher.readRow(target.name);
        steps = plan(target.desired, current, now());
        transactionId = await send(publisher, target.name, target.desired, steps);
      }
      await record(db, c, target ?? null, steps, transactionId, now());
      if (steps.length) outcome.published++;
      else outcome.inStep++;
    } catch (err) {
      outcome.failed++;
      const attempts = c.attempts + 1;
      const wait = Math.min(MAX_BACKOFF_MS, 5_000 * 2 ** Math.min(attempts, 12));
      // The chain's own words for the operator (the publisher keeps keys out of them), never a stack.
      const message = isAppError(err) ? err.message : "the chain node could not be reached";
      await db.attestationSync.updateMany({
        where: { accountId: c.accountId },
        data: { attempts, nextAttemptAt: new Date(now().getTime() + wait), lastError: message.slice(0, 500) },
      });
    }
  }
  return outcome;
}

/**
 * Clears the mark if no change came since it was claimed (else the account stays marked for the
 * next pass), and records what was sent: the transaction id on the row, an audit entry and the
 * `attestation.published` webhook, in one transaction.
 */
async function record(db: Db, c: Claimed, target: AccountTarget | null, steps: Step[], transactionId: string | null, at: Date) {
  await db.$transaction(async (tx) => {
    await tx.attestationSync.updateMany({
      where: { accountId: c.accountId, dirtyAt: c.dirtyAt },
      data: { dirtyAt: null },
    });
    await tx.attestationSync.updateMany({
      where: { accountId: c.accountId },
      data: {
        attempts: 0,
        nextAttemptAt: null,
        lastError: null,
        ...(steps.length ? { publishedAt: at, lastActions: steps, transactionId } : {}),
      },
    });
    if (!steps.length || !target) return;
    const accountDid = target.did;
    const status = statusAfter(target.desired);
    await appendAudit(
      tx,
      { orgId: c.orgId, actor: ACTOR },
      {
        action: "attestation.published",
        subjectType: "account",
        subject: accountDid,
        data: { actions: steps, status, transactionId },
      },
    );
    await emitEvent(tx, c.orgId, "attestation.published", { accountDid, status, actions: steps, transactionId });
  });
}
