import type { Account } from "@/generated/prisma/client.ts";
import { type Db, type DbOrTx, Prisma } from "../../db/client";
import { joinSql, utcTimestamp } from "../../db/sql";
import { type AppError, conflict } from "../../errors";
import { completeIdempotent, releaseIdempotencyKey } from "../../platform/idempotency";
import { eventInsertSql } from "../../platform/outbox";
import { chainAdapter } from "../../providers/chain";
import { appendAuditGrouped } from "../audit";
import { unspendProofTokenSql } from "../contacts";
import { unspendKycCreateTokenSql } from "../kyc";
import { accountView } from "./accounts";

/**
 * How long a free create owns its pending row: longer than any chain call may take (the node
 * timeout, and a transaction's 60 s expiry on a real chain), after which the chain's answer is
 * final and recovery may settle the row.
 */
export const PENDING_LEASE_MS = 120_000;

/** What a pending account carries so that recovery can finish or undo it exactly as its request would have. */
export type PendingState = {
  actor: string;
  personId: string | null;
  kycTokenId: string | null;
  emailTokenId: string | null;
  phoneTokenId: string | null;
  kycGate: boolean;
  riskAssessmentId: string;
  riskDecision: string;
  idempotencyClaimId: string | null;
};

/**
 * Step 4 of a free create: the account turns `provisional` with its `account.created` event and
 * audit entry, through the organization's group commit. The update only touches a row that is
 * still pending (recovery may have settled it), or the whole append fails.
 */
export async function finalizeCreate(db: Db, pending: Account, state: PendingState, transactionId: string): Promise<Account> {
  const now = new Date();
  const account: Account = {
    ...pending,
    lifecycle: "provisional",
    chainTransactionId: transactionId || null,
    pendingUntil: null,
    pendingState: null,
    updatedAt: now,
  };
  await appendAuditGrouped(db, account.orgId, {
    actor: state.actor,
    input: {
      action: "account.created",
      subjectType: "account",
      subject: account.did,
      data: {
        lifecycle: account.lifecycle,
        transactionId: transactionId || null,
        personId: state.personId,
        emailVerified: !!account.email,
        phoneVerified: !!account.phone,
        kycGate: state.kycGate,
        riskAssessmentId: state.riskAssessmentId,
        riskDecision: state.riskDecision,
      },
    },
    writes: [
      {
        sql: Prisma.sql`UPDATE accounts SET lifecycle = 'provisional', "chainTransactionId" = ${account.chainTransactionId},
                          "pendingUntil" = NULL, "pendingState" = NULL, "updatedAt" = ${utcTimestamp(now)}
                        WHERE id = ${account.id}::uuid AND lifecycle = 'pending'`,
        rows: 1,
      },
      { sql: eventInsertSql(account.orgId, "account.created", { accountDid: account.did, lifecycle: "provisional" }, now), rows: 1 },
    ],
  });
  return account;
}

/** Deletes a pending account and hands its tokens back, in one statement; false when it was no longer pending. */
export async function undoReservation(db: DbOrTx, accountId: string, state: PendingState): Promise<boolean> {
  const restores: Prisma.Sql[] = [];
  if (state.kycTokenId) restores.push(unspendKycCreateTokenSql(state.kycTokenId));
  if (state.emailTokenId) restores.push(unspendProofTokenSql(state.emailTokenId));
  if (state.phoneTokenId) restores.push(unspendProofTokenSql(state.phoneTokenId));
  const ctes = restores.map((sql, i) => Prisma.sql`, ${Prisma.raw(`r${i}`)} AS (${sql} AND EXISTS (SELECT 1 FROM gone) RETURNING 1)`);
  const [row] = await db.$queryRaw<{ undone: boolean }[]>`
    WITH gone AS (DELETE FROM accounts WHERE id = ${accountId}::uuid AND lifecycle = 'pending' RETURNING 1)
    ${joinSql(ctes)}
    SELECT EXISTS (SELECT 1 FROM gone) AS undone`;
  return row!.undone;
}

/**
 * Which unique key a refused reservation ran into, as the conflict the caller can act on: a contact
 * is found by its keyed hash, or by value (`clear`) when it was written in clear before sealing.
 */
export async function takenConflict(
  db: DbOrTx,
  orgId: string,
  a: Account,
  clear: { email: string | null; phone: string | null },
  kycCreateToken?: string,
): Promise<AppError> {
  const [taken] = await db.$queryRaw<{ name: boolean; email: boolean; phone: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM accounts WHERE (chain = ${a.chain} AND name = ${a.name}) OR did = ${a.did}) AS name,
           ${a.emailHash}::text IS NOT NULL AND EXISTS (SELECT 1 FROM accounts WHERE "orgId" = ${orgId}::uuid
             AND ("emailHash" = ${a.emailHash} OR email = ${clear.email}::text)) AS email,
           ${a.phoneHash}::text IS NOT NULL AND EXISTS (SELECT 1 FROM accounts WHERE "orgId" = ${orgId}::uuid
             AND ("phoneHash" = ${a.phoneHash} OR phone = ${clear.phone}::text)) AS phone`;
  if (taken?.email) return conflict("email_taken", "This email address is already bound to an account.");
  if (taken?.phone) return conflict("phone_taken", "This phone number is already bound to an account.");
  return conflict(
    "name_taken",
    `The account name ${a.name} is already taken; choose another.`,
    kycCreateToken ? { kycCreateToken } : undefined,
  );
}

export type RecoveryResult = { finished: number; undone: number; unreachable: number };

/**
 * Settles pending accounts whose request stopped owning them (a crash between the chain call and
 * the final commit, or a chain answer that never came): an account the chain holds with our owner
 * key is finished as the request would have finished it, and its Idempotency-Key replays its result;
 * any other is undone, its tokens handed back and its Idempotency-Key freed for a retry.
 */
export async function recoverPendingCreates(db: Db, now = new Date(), limit = 100): Promise<RecoveryResult> {
  const rows = await db.account.findMany({
    where: { lifecycle: "pending", pendingUntil: { lt: now } },
    orderBy: { pendingUntil: "asc" },
    take: limit,
  });
  const result: RecoveryResult = { finished: 0, undone: 0, unreachable: 0 };
  for (const row of rows) {
    const state = row.pendingState as PendingState;
    let onChain: Awaited<ReturnType<ReturnType<typeof chainAdapter>["getAccount"]>>;
    try {
      onChain = await chainAdapter(db).getAccount(row.name);
    } catch {
      result.unreachable++; // the chain cannot say now: the next run asks again
      continue;
    }
    if (onChain?.ownerKeys.includes(row.ownerPublicKey)) {
      const finished = await finalizeCreate(db, row, state, "").catch(() => null);
      if (!finished) continue; // settled by another instance meanwhile
      // The key answers what the create would have returned; each door renders it (/v1: its 201).
      if (state.idempotencyClaimId) await completeIdempotent(db, state.idempotencyClaimId, { ...accountView(finished), transactionId: "" });
      result.finished++;
    } else if (await undoReservation(db, row.id, state)) {
      if (state.idempotencyClaimId) await releaseIdempotencyKey(db, state.idempotencyClaimId);
      result.undone++;
    }
  }
  return result;
}
