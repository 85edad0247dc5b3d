import { randomToken, sha256Hex } from "../../crypto/hash";
import type { Tx } from "../../db/client";
import { forbidden } from "../../errors";

/** decisions.md §4: single use, valid 24 hours. */
export const KYC_CREATE_TOKEN_TTL_SEC = 24 * 60 * 60;

/** Issued to an approved person (GET /v1/kyc/status); only the hash is kept. */
export async function issueKycCreateToken(tx: Tx, orgId: string, personId: string) {
  const token = `kct_${randomToken(32)}`;
  await tx.kycCreateToken.create({
    data: { orgId, personId, tokenHash: sha256Hex(token), expiresAt: new Date(Date.now() + KYC_CREATE_TOKEN_TTL_SEC * 1000) },
  });
  return token;
}

/**
 * Spends a KYC create token inside the caller's transaction and returns its approved person.
 * A rollback (a taken name, a chain failure) leaves it unspent, which is how a name conflict
 * hands the token back.
 */
export async function spendKycCreateToken(tx: Tx, orgId: string, token: string): Promise<string> {
  const refuse = () => forbidden("kyc_required", "The kycCreateToken is invalid, expired or already used; an approved KYC is required.");
  const row = await tx.kycCreateToken.findUnique({
    where: { tokenHash: sha256Hex(token) },
    include: { person: { select: { kycStatus: true } } },
  });
  if (!row || row.orgId !== orgId || row.usedAt || row.expiresAt <= new Date() || row.person.kycStatus !== "approved") throw refuse();
  const spent = await tx.kycCreateToken.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: new Date() } });
  if (spent.count === 0) throw refuse();
  return row.personId;
}
