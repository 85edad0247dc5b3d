import { env } from "@/env";
import { randomToken, sha256Hex } from "../../crypto/hash";
import type { DbOrTx } from "../../db/client";
import { rateLimited } from "../../errors";
import { isUuid } from "../../platform/ids";
import { hitWindow, peekWindow } from "../../platform/rate-limit";

/** WebAuthn challenges and sign-in tickets live 5 minutes and are spent once. */
export const CHALLENGE_TTL_SEC = 5 * 60;

export type ChallengeKind = "register" | "authenticate" | "ticket";

/**
 * The relying party is the service's public origin: its hostname is the RP ID. Browsers refuse an
 * IP address as RP ID, so a sandbox served on a loopback address (http://127.0.0.1:3000) offers
 * passkeys on http://localhost at the same port instead, and its invitation links point there.
 */
export function relyingParty() {
  const url = new URL(env().BI_PUBLIC_URL);
  if (env().BI_ENV === "sandbox" && (url.hostname === "127.0.0.1" || url.hostname === "[::1]")) url.hostname = "localhost";
  return { rpID: url.hostname, origin: url.origin, rpName: "Bind Identity" };
}

export async function storeChallenge(db: DbOrTx, kind: ChallengeKind, challenge: string, subject: string | null, now = new Date()) {
  return db.consoleAuthChallenge.create({
    data: { kind, challenge, subject, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_SEC * 1000) },
  });
}

/**
 * Spends a challenge: deleted whatever happens next, so it can be used once; null when unknown,
 * of another kind or expired. Expired rows are swept on the way.
 */
export async function spendChallenge(db: DbOrTx, where: { id: string } | { challenge: string }, kind: ChallengeKind, now = new Date()) {
  if ("id" in where && !isUuid(where.id)) return null;
  await db.consoleAuthChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
  type Row = { id: string; subject: string | null; challenge: string; expiresAt: Date };
  const rows =
    "id" in where
      ? await db.$queryRaw<Row[]>`DELETE FROM console_auth_challenges WHERE id = ${where.id}::uuid AND kind = ${kind}
          RETURNING id, subject, challenge, "expiresAt"`
      : await db.$queryRaw<Row[]>`DELETE FROM console_auth_challenges WHERE challenge = ${where.challenge} AND kind = ${kind}
          RETURNING id, subject, challenge, "expiresAt"`;
  const row = rows[0];
  return row && row.expiresAt > now ? row : null;
}

/** A sign-in ticket: the proof that password and code were right, exchanged once for a session. */
export async function issueTicket(db: DbOrTx, memberIds: string[]) {
  const ticket = randomToken();
  await storeChallenge(db, "ticket", sha256Hex(ticket), JSON.stringify(memberIds));
  return ticket;
}

export async function spendTicket(db: DbOrTx, ticket: string): Promise<string[] | null> {
  const row = await spendChallenge(db, { challenge: sha256Hex(ticket) }, "ticket");
  return row?.subject ? (JSON.parse(row.subject) as string[]) : null;
}

/** Failed steps of sign-in and invitation acceptance in a 15-minute window, like the organization password's. */
export const CREDENTIAL_FAILURES = { windowSec: 15 * 60, perClientIp: 20, perMember: 10 } as const;

export const ipBucket = (clientIp: string) => `console-credentials:failed:ip:${clientIp}`;
export const memberBucket = (memberId: string) => `console-credentials:failed:member:${memberId}`;

/** 429 while `bucket` holds `limit` failures in the current window (nothing is counted here). */
export async function refuseWhileLimited(db: DbOrTx, bucket: string, limit: number) {
  const now = new Date();
  if ((await peekWindow(db, bucket, CREDENTIAL_FAILURES.windowSec, now)) < limit) return;
  const windowMs = CREDENTIAL_FAILURES.windowSec * 1000;
  throw rateLimited(
    Math.ceil((windowMs - (now.getTime() % windowMs)) / 1000),
    "Too many failed attempts; wait a few minutes and try again.",
  );
}

export const countFailure = (db: DbOrTx, bucket: string) => hitWindow(db, bucket, Number.MAX_SAFE_INTEGER, CREDENTIAL_FAILURES.windowSec);
