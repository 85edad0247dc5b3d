import type { DbOrTx, Tx } from "../../db/client";

/**
 * Queues one list-change re-screen per organization that has someone to re-screen, in the
 * transaction that makes `versionId` the active version of its list (called by activateVersion):
 * the runs exist exactly when the version does. A person list (ftm, ofac) re-screens approved
 * people (organizations with someone whose identity is on file), an account-labels list bound
 * accounts; an organization's own list queues its owner only. The key "list:<versionId>" makes it once per
 * organization and version, however often this is called.
 */
export async function enqueueListChangeRuns(tx: Tx, input: { list: string; versionId: string; previousId: string | null }) {
  const version = await tx.screeningListVersion.findUniqueOrThrow({
    where: { id: input.versionId },
    select: { format: true, orgId: true },
  });
  // An organization's own list is screened for that organization alone (docs/screening.md § Lists).
  const owner = version.orgId;
  const accounts = version.format === "labels";
  const phase = accounts ? "accounts" : "persons";
  const dedupeKey = `list:${input.versionId}`;
  return tx.$executeRaw`
    INSERT INTO screening_monitor_runs (id, "orgId", kind, "dedupeKey", list, "listVersionId", "previousVersionId", phase)
    SELECT gen_random_uuid(), o.id, 'list_change', ${dedupeKey}, ${input.list}, ${input.versionId}::uuid, ${input.previousId}::uuid, ${phase}
    FROM organizations o
    WHERE (${owner}::uuid IS NULL OR o.id = ${owner}::uuid) AND ((${accounts} AND EXISTS (SELECT 1 FROM account_bindings b WHERE b."orgId" = o.id AND b."revokedAt" IS NULL))
       OR (NOT ${accounts} AND EXISTS (SELECT 1 FROM screening_subjects s WHERE s."orgId" = o.id)))
    ON CONFLICT ("orgId", "dedupeKey") DO NOTHING`;
}

/**
 * Queues today's (daily) or this ISO week's (weekly) re-screen of every organization that turned
 * the periodic re-screen on. Safe from every instance at once: the key of the period is unique.
 */
export async function enqueuePeriodicRuns(db: DbOrTx): Promise<number> {
  return db.$executeRaw`
    INSERT INTO screening_monitor_runs (id, "orgId", kind, "dedupeKey", phase)
    SELECT gen_random_uuid(), s."orgId", 'periodic',
      'periodic:' || CASE WHEN s.frequency = 'daily' THEN to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')
                          ELSE to_char(now() AT TIME ZONE 'UTC', 'IYYY-"W"IW') END,
      'persons'
    FROM screening_monitor_settings s
    WHERE s.frequency <> 'off'
    ON CONFLICT ("orgId", "dedupeKey") DO NOTHING`;
}
