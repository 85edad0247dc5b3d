import { randomToken, sha256Hex } from "../../crypto/hash";
import { open, seal } from "../../crypto/secret-box";
import { type DbOrTx, Prisma } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { forbidden } from "../../errors";

/** Single use, valid 24 hours (docs/decisions.md, KYC create token). */
const KYC_CREATE_TOKEN_TTL_SEC = 24 * 60 * 60;

/**
 * An approved person's create token, as GET /v1/kyc/status hands it out: the live one when there
 * is one (sealed at rest beside its hash, so polling hands back the same token instead of minting
 * more), else a new one. The only place tokens are minted, tests included.
 */
export async function liveCreateToken(db: DbOrTx, orgId: string, personId: string) {
  const live = await db.kycCreateToken.findFirst({
    where: { orgId, personId, usedAt: null, expiresAt: { gt: new Date() }, tokenEnc: { not: null } },
    orderBy: { createdAt: "desc" },
  });
  if (live?.tokenEnc) return { token: open(live.tokenEnc), expiresAt: live.expiresAt };
  const token = `kct_${randomToken(32)}`;
  const expiresAt = new Date(Date.now() + KYC_CREATE_TOKEN_TTL_SEC * 1000);
  await db.kycCreateToken.create({ data: { orgId, personId, tokenHash: sha256Hex(token), tokenEnc: seal(token), expiresAt } });
  return { token, expiresAt };
}

/** A create token as the batched read of a free create sees it (`kycCreateTokenColumn`). */
export type KycCreateTokenRow = {
  id: string;
  orgId: string;
  personId: string;
  used: boolean;
  expiresAtMs: number;
  approved: boolean;
} | null;

/**
 * The token as one JSON column of the caller's own read, so a free create reads its gates in one
 * round trip. Null when no token has that hash.
 */
export const kycCreateTokenColumn = (token: string) => Prisma.sql`(
  SELECT json_build_object('id', t.id, 'orgId', t."orgId", 'personId', t."personId", 'used', t."usedAt" IS NOT NULL,
                           'expiresAtMs', extract(epoch from t."expiresAt") * 1000, 'approved', p."kycStatus" = 'approved')
  FROM kyc_create_tokens t JOIN people p ON p.id = t."personId" WHERE t."tokenHash" = ${sha256Hex(token)})`;

/** The approved person a token may create an account for, or the refusal. */
export function usableKycCreateToken(row: KycCreateTokenRow, orgId: string, now: Date): { id: string; personId: string } {
  if (!row || row.orgId !== orgId || row.used || row.expiresAtMs <= now.getTime() || !row.approved)
    throw forbidden("kyc_required", "The kycCreateToken is invalid, expired or already used; an approved KYC is required.");
  return { id: row.id, personId: row.personId };
}

/**
 * Spends the token, as part of the caller's statement: one conditional UPDATE, so of parallel
 * spends of one token only the first touches its row. Undone by `unspendKycCreateTokenSql`.
 */
export const spendKycCreateTokenSql = (id: string, now: Date) =>
  Prisma.sql`UPDATE kyc_create_tokens SET "usedAt" = ${utcTimestamp(now)} WHERE id = ${id}::uuid AND "usedAt" IS NULL`;

/** Hands a token back when the account it paid for was never created (a taken name, a chain refusal). */
export const unspendKycCreateTokenSql = (id: string) => Prisma.sql`UPDATE kyc_create_tokens SET "usedAt" = NULL WHERE id = ${id}::uuid`;
