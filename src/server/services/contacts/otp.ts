import { randomUUID } from "node:crypto";
import { env } from "@/env";
import type { OtpChallenge } from "@/generated/prisma/client.ts";
import type { ContactChannel, OtpPurpose } from "@/generated/prisma/enums.ts";
import { constantTimeEqual, hmacSha256Hex, randomDigits, randomToken, sha256Hex } from "../../crypto/hash";
import { deriveKey, open, seal } from "../../crypto/secret-box";
import { type DbOrTx, Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { AppError, forbidden, rateLimited } from "../../errors";
import { contactHash } from "../../platform/contact-address";
import { hitWindow } from "../../platform/rate-limit";
import { messaging } from "../../providers/messaging";

/** docs/api/contract-decisions.md §4 */
export const OTP = {
  digits: 6,
  ttlSec: 10 * 60,
  maxAttempts: 5,
  sendsPerAddressPerHour: 5,
  sendsPerIpPerHour: 20,
  proofTtlSec: 15 * 60,
} as const;

const codeHash = (challengeId: string, code: string) => hmacSha256Hex(deriveKey("otp-code"), `${challengeId}:${code}`);
const tokenHash = (token: string) => sha256Hex(token);

/**
 * How a code's address is stored (docs/data-protection.md): the code is sent to it and its proof
 * gives it to the create or the contact change that spends it, so it is kept, sealed with
 * BI_ENCRYPTION_KEY ("v1.…": codes live minutes, no account or person key is needed to read them
 * back); the keyed hash beside it (`addressHash`, the account's contact hash) is how the erasure
 * finds them. A public signup's work address (no organization) stays in clear: it becomes the
 * organization's console member and checkout address, both kept in clear.
 */
const storedAddress = (orgId: string | null, address: string) => (orgId ? seal(address) : address);
/** A stored address as it reads: opened, or as it is (a public signup's, or a code written before addresses were sealed). */
const readAddress = (stored: string) => (stored.startsWith("v1.") && !stored.includes("@") ? open(stored) : stored);

export type StartInput = {
  orgId: string | null;
  purpose: OtpPurpose;
  channel: ContactChannel;
  /** Normalised: lower-case email or E.164. */
  address: string;
  accountId?: string;
  clientIp: string;
  message: (code: string) => { subject: string; text: string };
};

/**
 * Issues a one-time code and sends it. Sends are capped per address (for each purpose and
 * organization) and per client IP (across instances); the code is stored only as a keyed hash. If the send fails nothing is kept.
 */
export async function startChallenge(db: DbOrTx, input: StartInput) {
  const now = new Date();
  // Per purpose and organization: codes someone makes us send for a public signup (or another
  // tenant) must not use up the codes a member needs to sign in.
  const hash = contactHash(input.orgId, input.channel, input.address);
  const addressBucket = `otp-send:${input.purpose}:${input.orgId ?? "public"}:${input.channel}:${hash}`;
  const perAddress = await hitWindow(db, addressBucket, OTP.sendsPerAddressPerHour, 3600, now);
  if (perAddress.exceeded) throw rateLimited(perAddress.resetSec, "Too many codes were sent to this address; retry later.");
  // Counted per organization too: tenants behind one NAT or proxy must not share a budget.
  const perIp = await hitWindow(db, `otp-send:ip:${input.orgId ?? "public"}:${input.clientIp}`, OTP.sendsPerIpPerHour, 3600, now);
  if (perIp.exceeded) throw rateLimited(perIp.resetSec, "Too many codes were requested from this address; retry later.");

  const id = randomUUID();
  const code = randomDigits(OTP.digits);
  const challenge = await db.otpChallenge.create({
    data: {
      id,
      orgId: input.orgId,
      purpose: input.purpose,
      channel: input.channel,
      address: storedAddress(input.orgId, input.address),
      addressHash: hash,
      accountId: input.accountId,
      codeHash: codeHash(id, code),
      maxAttempts: OTP.maxAttempts,
      clientIp: input.clientIp,
      expiresAt: new Date(now.getTime() + OTP.ttlSec * 1000),
    },
  });
  try {
    const msg = input.message(code);
    const send = messaging(db);
    if (input.channel === "email") await send.sendEmail({ to: input.address, ...msg, orgId: input.orgId });
    else await send.sendSms({ to: input.address, text: msg.text, orgId: input.orgId });
  } catch (err) {
    await db.otpChallenge.delete({ where: { id } }).catch(() => undefined);
    throw err;
  }
  const devCode = input.channel === "email" && env().BI_DEV_CODES ? { devCode: code } : {};
  return { challenge: { ...challenge, address: input.address }, ...devCode };
}

/**
 * Checks a code. Attempts are counted by one conditional UPDATE, so parallel guesses can never
 * exceed the cap; the matching code consumes the challenge exactly once.
 */
export async function confirmChallenge(
  db: DbOrTx,
  input: { orgId: string | null; purpose: OtpPurpose; channel?: ContactChannel; challengeId: string; code: string },
): Promise<OtpChallenge> {
  const invalid = () => new AppError("INVALID_CODE", "The code is incorrect or has expired.");
  const scope = { id: input.challengeId, orgId: input.orgId, purpose: input.purpose, ...(input.channel ? { channel: input.channel } : {}) };
  const counted = await db.otpChallenge.updateMany({
    where: { ...scope, consumedAt: null, attempts: { lt: OTP.maxAttempts } },
    data: { attempts: { increment: 1 } },
  });
  const challenge = await db.otpChallenge.findFirst({ where: scope });
  if (!challenge) throw invalid();
  if (counted.count === 0) {
    if (!challenge.consumedAt && challenge.attempts >= challenge.maxAttempts) {
      throw new AppError("RATE_LIMITED", "Too many attempts on this code; request a new one.", { reason: "attempts_exhausted" });
    }
    throw invalid();
  }
  if (challenge.expiresAt <= new Date()) throw invalid();
  if (!/^\d{6}$/.test(input.code) || !constantTimeEqual(codeHash(challenge.id, input.code), challenge.codeHash)) {
    throw new AppError("INVALID_CODE", "The code is incorrect or has expired.", {
      attemptsRemaining: Math.max(0, challenge.maxAttempts - challenge.attempts),
    });
  }
  const consumed = await db.otpChallenge.updateMany({ where: { id: challenge.id, consumedAt: null }, data: { consumedAt: new Date() } });
  if (consumed.count === 0) throw invalid();
  return { ...challenge, address: readAddress(challenge.address) };
}

/** A single-use proof that `address` (as confirmChallenge returns it: opened) was verified, valid 15 minutes; only its hash is stored. */
export async function issueProofToken(db: DbOrTx, c: Pick<OtpChallenge, "id" | "orgId" | "channel" | "purpose" | "address">) {
  const token = `${c.channel === "email" ? "ept" : "ppt"}_${randomToken(32)}`;
  await db.proofToken.create({
    data: {
      orgId: c.orgId,
      channel: c.channel,
      purpose: c.purpose,
      address: storedAddress(c.orgId, c.address),
      addressHash: contactHash(c.orgId, c.channel, c.address),
      tokenHash: tokenHash(token),
      challengeId: c.id,
      expiresAt: new Date(Date.now() + OTP.proofTtlSec * 1000),
    },
  });
  return { token, expiresInSec: OTP.proofTtlSec };
}

/** Who may spend a proof: its organization (null for public signup), channel and, when given, purpose. */
export type ProofHolder = { orgId: string | null; channel: ContactChannel; purpose?: OtpPurpose };

/** What decides whether a proof token may be spent by a holder. */
type ProofFacts = { orgId: string | null; channel: string; purpose: string; used: boolean; expiresAtMs: number };

const isUsable = (row: ProofFacts | null, holder: ProofHolder, now: Date): boolean =>
  !!row &&
  row.orgId === holder.orgId &&
  row.channel === holder.channel &&
  (holder.purpose === undefined || row.purpose === holder.purpose) &&
  !row.used &&
  row.expiresAtMs > now.getTime();

/** A proof token that is usable now for `holder`: read only, nothing is spent. */
export async function usableProofToken(db: DbOrTx, holder: ProofHolder, token: string) {
  const row = await db.proofToken.findUnique({ where: { tokenHash: tokenHash(token) } });
  const facts = row && { ...row, used: !!row.usedAt, expiresAtMs: row.expiresAt.getTime() };
  if (!row || !isUsable(facts, holder, new Date())) throw proofRefused(holder.channel);
  return { ...row, address: readAddress(row.address) };
}

/** A proof token as the batched read of a free create sees it (`proofTokenColumn`): its address as stored. */
export type ProofTokenRow = (ProofFacts & { id: string; address: string }) | null;

/** The token as one JSON column of the caller's own read; null when no token has that hash. */
export const proofTokenColumn = (token: string) => Prisma.sql`(
  SELECT json_build_object('id', id, 'orgId', "orgId", 'channel', channel, 'purpose', purpose, 'address', address,
                           'used', "usedAt" IS NOT NULL, 'expiresAtMs', extract(epoch from "expiresAt") * 1000)
  FROM proof_tokens WHERE "tokenHash" = ${tokenHash(token)})`;

/** The proven address (opened) a token may be spent for by `holder`, or the refusal. */
export function usableProofRow(row: ProofTokenRow, holder: ProofHolder, now: Date): { id: string; address: string } {
  if (!row || !isUsable(row, holder, now)) throw proofRefused(holder.channel);
  return { id: row.id, address: readAddress(row.address) };
}

/** Spends a proof token as part of the caller's statement (one conditional UPDATE; see spendProofToken). */
export const spendProofTokenSql = (id: string, now: Date) =>
  Prisma.sql`UPDATE proof_tokens SET "usedAt" = ${utcTimestamp(now)} WHERE id = ${id}::uuid AND "usedAt" IS NULL`;

/** Hands a proof token back when the account it was spent for was never created. */
export const unspendProofTokenSql = (id: string) => Prisma.sql`UPDATE proof_tokens SET "usedAt" = NULL WHERE id = ${id}::uuid`;

/**
 * Spends a proof token inside the caller's transaction: one conditional UPDATE, so of parallel
 * spends of one token only the first matches. A rollback leaves it unspent.
 */
export async function spendProofToken(tx: Tx, holder: ProofHolder, token: string): Promise<{ id: string; address: string }> {
  const row = await usableProofToken(tx, holder, token);
  const spent = await tx.proofToken.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: new Date() } });
  if (spent.count === 0) throw proofRefused(holder.channel);
  return { id: row.id, address: row.address };
}

const proofRefused = (channel: ContactChannel) =>
  forbidden(
    channel === "email" ? "email_not_verified" : "phone_not_verified",
    `The ${channel} proof token is invalid, expired or already used; verify the ${channel} again.`,
  );
