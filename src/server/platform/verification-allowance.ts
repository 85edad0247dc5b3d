import type { DbOrTx } from "../db/client";

/**
 * The monthly KYC verification allowance of a plan (docs/decisions.md, "Plans"): every KYC start
 * takes one verification from the organization's allowance for the current UTC month before the
 * provider is called, and gives it back when the start fails. The meter is one row per
 * organization and month in `usage_days` (bucket `verifications:<orgId>`, day = the 1st of the
 * month), so taking is a single conditional update shared by every instance: parallel starts at
 * the edge of the allowance can never take more than it holds.
 */

export const startOfUtcMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
export const startOfNextUtcMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));

const bucketOf = (orgId: string) => `verifications:${orgId}`;

export type AllowanceTake = { taken: true; used: number } | { taken: false; used: number; resetAt: Date };

/**
 * The month's row is created on first use from the KYC sessions the organization already started
 * this month, so an organization that started verifications before the meter existed is not given
 * them again.
 */
async function ensureMonthRow(db: DbOrTx, orgId: string, month: Date) {
  await db.$executeRaw`
    INSERT INTO usage_days (bucket, day, count)
    SELECT ${bucketOf(orgId)}, ${month}::date, count(*)::int FROM kyc_sessions
     WHERE "orgId" = ${orgId}::uuid AND "createdAt" >= ${month}
    ON CONFLICT (bucket, day) DO NOTHING`;
}

/** Takes one verification; `included` null = no monthly cap (counted only). */
export async function takeVerification(db: DbOrTx, orgId: string, included: number | null, now: Date): Promise<AllowanceTake> {
  const month = startOfUtcMonth(now);
  // One round trip once the month's row exists: the take, and whether the row was there at all
  // (the scalar subquery reads the statement's snapshot, before the update).
  const take = async () => {
    const [row] = await db.$queryRaw<{ taken: number | null; present: boolean }[]>`
      WITH took AS (
        UPDATE usage_days SET count = count + 1
         WHERE bucket = ${bucketOf(orgId)} AND day = ${month}::date
           AND (${included}::int IS NULL OR count < ${included}::int)
        RETURNING count)
      SELECT (SELECT count FROM took) AS taken,
             EXISTS (SELECT 1 FROM usage_days WHERE bucket = ${bucketOf(orgId)} AND day = ${month}::date) AS present`;
    return row!;
  };
  let row = await take();
  if (row.taken === null && !row.present) {
    // The month's first verification: make the row, then take.
    await ensureMonthRow(db, orgId, month);
    row = await take();
  }
  if (row.taken !== null) return { taken: true, used: Number(row.taken) };
  return { taken: false, used: await verificationsUsed(db, orgId, now), resetAt: startOfNextUtcMonth(now) };
}

/** Gives back a verification whose start failed before anything was written. */
export async function giveBackVerification(db: DbOrTx, orgId: string, now: Date): Promise<void> {
  await db.$executeRaw`
    UPDATE usage_days SET count = count - 1
     WHERE bucket = ${bucketOf(orgId)} AND day = ${startOfUtcMonth(now)}::date AND count > 0`;
}

/** Verifications taken this UTC month (the KYC sessions started, before the first take). */
export async function verificationsUsed(db: DbOrTx, orgId: string, now: Date): Promise<number> {
  const month = startOfUtcMonth(now);
  const row = await db.usageDay.findUnique({ where: { bucket_day: { bucket: bucketOf(orgId), day: month } } });
  if (row) return row.count;
  return db.kycSession.count({ where: { orgId, createdAt: { gte: month } } });
}

/**
 * Reuses of a verification made for another organization (a wallet credential presented with the
 * person's consent, docs/api/guides/wallets.md): counted per organization and month in
 * `usage_days` (bucket `reuses:<orgId>`), billed as reuses, never taken from the KYC allowance.
 */
const reuseBucketOf = (orgId: string) => `reuses:${orgId}`;

export async function countReuse(db: DbOrTx, orgId: string, now: Date): Promise<void> {
  await db.$executeRaw`
    INSERT INTO usage_days (bucket, day, count) VALUES (${reuseBucketOf(orgId)}, ${startOfUtcMonth(now)}::date, 1)
    ON CONFLICT (bucket, day) DO UPDATE SET count = usage_days.count + 1`;
}

/** Reuses counted this UTC month. */
export async function reusesUsed(db: DbOrTx, orgId: string, now: Date): Promise<number> {
  const row = await db.usageDay.findUnique({ where: { bucket_day: { bucket: reuseBucketOf(orgId), day: startOfUtcMonth(now) } } });
  return row?.count ?? 0;
}
