import { randomToken, sha256Hex } from "../../crypto/hash";
import { open, seal } from "../../crypto/secret-box";
import type { DbOrTx, Tx } from "../../db/client";
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
