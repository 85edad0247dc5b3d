import { type DbOrTx, Prisma } from "../db/client";
import { utcTimestamp } from "../db/sql";

/**
 * Marks accounts whose on-chain attestation must follow a change (a binding made, suspended,
 * reinstated or revoked, a person erased), in the transaction of the change itself, so a crash
 * can never lose it: the attestation worker (services/attestations) publishes what the database
 * says and clears the mark only when the chain is in step. One statement, and a no-op for an
 * organization that does not publish (docs/api/guides/onchain.md).
 */
export async function attestationChanged(tx: DbOrTx, orgId: string, accountIds: string[], at: Date): Promise<void> {
  if (!accountIds.length) return;
  await tx.$executeRaw`
    INSERT INTO attestation_sync ("accountId", "orgId", "dirtyAt")
    SELECT a, ${orgId}::uuid, ${at} FROM unnest(${accountIds}::uuid[]) AS a
    WHERE EXISTS (SELECT 1 FROM attestation_settings s WHERE s."orgId" = ${orgId}::uuid AND s.enabled)
    ON CONFLICT ("accountId") DO UPDATE SET "dirtyAt" = EXCLUDED."dirtyAt", attempts = 0, "nextAttemptAt" = NULL`;
}

/** attestationChanged as a statement the caller runs within its own (a grouped audit append's writes); it inserts 0 rows for an organization that does not publish. */
export const attestationChangedSql = (orgId: string, accountIds: string[], at: Date): Prisma.Sql =>
  Prisma.sql`INSERT INTO attestation_sync ("accountId", "orgId", "dirtyAt")
    SELECT a, ${orgId}::uuid, ${utcTimestamp(at)} FROM unnest(${accountIds}::uuid[]) AS a
    WHERE EXISTS (SELECT 1 FROM attestation_settings s WHERE s."orgId" = ${orgId}::uuid AND s.enabled)
    ON CONFLICT ("accountId") DO UPDATE SET "dirtyAt" = EXCLUDED."dirtyAt", attempts = 0, "nextAttemptAt" = NULL`;
