import type { ServiceContext } from "../../context";

/** Days shown by billing.history, today (UTC) included. */
export const HISTORY_DAYS = 30;

const DAY_MS = 86_400_000;
const dayKey = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The last 30 UTC days of the organization's metered use: requests per day as the plan quota
 * counted them (the `usage_days` rows of bucket `plan:<orgId>`, the same count `usage` shows as
 * today's) and KYC verifications per day (sessions started, which is what the month's allowance meter in `usage`
 * counts: a start that failed at the provider left no session and was given back).
 * Every day is present, oldest first; a day without use is zero.
 */
export async function usageHistory(ctx: ServiceContext) {
  const now = ctx.now();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - (HISTORY_DAYS - 1) * DAY_MS);
  const orgId = ctx.org.id;
  const [requestRows, verificationRows] = await Promise.all([
    ctx.db.usageDay.findMany({ where: { bucket: `plan:${orgId}`, day: { gte: from } }, select: { day: true, count: true } }),
    // Timestamps are stored in UTC without a zone, so truncating them gives the UTC day.
    ctx.db.$queryRaw<{ day: Date; n: number }[]>`
      SELECT date_trunc('day', "createdAt") AS day, count(*)::int AS n
      FROM kyc_sessions
      WHERE "orgId" = ${orgId}::uuid AND "createdAt" >= ${from}
      GROUP BY 1`,
  ]);
  const requests = new Map(requestRows.map((r) => [dayKey(r.day), r.count]));
  const verifications = new Map(verificationRows.map((r) => [dayKey(r.day), r.n]));
  const days = Array.from({ length: HISTORY_DAYS }, (_, i) => {
    const day = dayKey(new Date(from.getTime() + i * DAY_MS));
    return { day, requests: requests.get(day) ?? 0, verifications: verifications.get(day) ?? 0 };
  });
  return {
    days,
    totals: {
      requests: days.reduce((n, d) => n + d.requests, 0),
      verifications: days.reduce((n, d) => n + d.verifications, 0),
    },
  };
}
