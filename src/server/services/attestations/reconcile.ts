import type { Db } from "../../db/client";
import type { AttestationPublisher, AttestationRow } from "../../providers/chain/attestation";
import { desiredAttestations, plan } from "./desired";

/**
 * The attestation table compared with the database, for rows changed behind the service's back
 * (by hand with the issuer's key, a failed deploy, an organization deleted) and rows the service
 * should have written but did not (docs/api/guides/onchain.md, "Publishing from the service").
 * Each account in drift is marked for the worker (publishPending), which repairs it from the
 * database's state; a row naming an account the service does not know is removed at once, and
 * rows past their expiry are swept by the contract's own `expire`.
 */

export type ReconcileOutcome = { checked: number; drifted: number; removedUnknown: number; expired: number };

const PAGE = 200;

/** Marks accounts for the worker whatever their organization's setting (a disabled one's rows must go). */
async function mark(db: Db, rows: { accountId: string; orgId: string }[], at: Date) {
  if (!rows.length) return;
  await db.$executeRaw`
    INSERT INTO attestation_sync ("accountId", "orgId", "dirtyAt")
    SELECT t.a, t.o, ${at} FROM unnest(${rows.map((r) => r.accountId)}::uuid[], ${rows.map((r) => r.orgId)}::uuid[]) AS t(a, o)
    ON CONFLICT ("accountId") DO UPDATE SET "dirtyAt" = EXCLUDED."dirtyAt", attempts = 0, "nextAttemptAt" = NULL`;
}

export async function reconcileAttestations(
  db: Db,
  publisher: AttestationPublisher,
  opts: { chain: string; now?: Date },
): Promise<ReconcileOutcome> {
  const now = opts.now ?? new Date();
  const out: ReconcileOutcome = { checked: 0, drifted: 0, removedUnknown: 0, expired: 0 };
  const seen = new Set<string>();
  let lowerBound: string | undefined;
  for (;;) {
    const page = await publisher.readRows({ lowerBound, limit: PAGE });
    const byName = new Map<string, AttestationRow>(page.rows.map((r) => [r.account, r]));
    const accounts = await db.account.findMany({
      where: { chain: opts.chain, name: { in: [...byName.keys()] } },
      select: { id: true, orgId: true, name: true },
    });
    const known = new Map(accounts.map((a) => [a.name, a]));
    const wanted = await desiredAttestations(
      db,
      accounts.map((a) => a.id),
    );
    const drifted: { accountId: string; orgId: string }[] = [];
    for (const row of page.rows) {
      out.checked++;
      if (row.expires.getTime() <= now.getTime()) out.expired++;
      const account = known.get(row.account);
      if (!account) {
        // Not an account of ours on this chain: nothing in the database can say it is verified.
        await publisher.remove(row.account);
        out.removedUnknown++;
        continue;
      }
      seen.add(account.id);
      if (plan(wanted.get(account.id)?.desired ?? null, row, now).length) drifted.push({ accountId: account.id, orgId: account.orgId });
    }
    await mark(db, drifted, now);
    out.drifted += drifted.length;
    if (!page.nextLowerBound) break;
    lowerBound = page.nextLowerBound;
  }
  // Accounts the table should hold but does not: bound accounts of publishing organizations.
  const candidates = await db.$queryRaw<{ accountId: string; orgId: string }[]>`
    SELECT DISTINCT a.id::text AS "accountId", a."orgId"::text AS "orgId"
    FROM accounts a JOIN attestation_settings s ON s."orgId" = a."orgId" AND s.enabled
    JOIN account_bindings b ON b."accountId" = a.id
    WHERE a.chain = ${opts.chain}`;
  const missing = candidates.filter((c) => !seen.has(c.accountId));
  const wanted = await desiredAttestations(
    db,
    missing.map((m) => m.accountId),
  );
  const unpublished = missing.filter((m) => plan(wanted.get(m.accountId)?.desired ?? null, null, now).length);
  await mark(db, unpublished, now);
  out.drifted += unpublished.length;
  if (out.expired) await publisher.expire(Math.min(out.checked, 500));
  return out;
}
