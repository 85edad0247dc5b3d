import type { ServiceContext } from "../../context";
import type { DbOrTx, Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { conflict } from "../../errors";
import { attestationChanged } from "../../platform/attestation-sync";
import { attestationConfigFromEnv } from "../../providers/chain/attestation";
import { appendAudit } from "../audit";
import type { AttestationSettings, AttestationSettingsInput } from "./attestations.schema";

/**
 * An organization's opt-in to publishing its bindings into the attestation contract
 * (docs/api/guides/onchain.md, "Publishing from the service"). No row reads as the defaults: off,
 * no country, 365 days. The first PUT creates the row, which gives the organization its number on
 * chain. A change marks every bound account of the organization for the worker, which then issues,
 * reissues or removes their rows from what the database says.
 */

const FIELDS = ["enabled", "publishCountry", "validDays"] as const;
type Settings = { enabled: boolean; publishCountry: boolean; validDays: number };
const DEFAULTS: Settings = { enabled: false, publishCountry: false, validDays: 365 };

async function view(db: DbOrTx, orgId: string): Promise<AttestationSettings> {
  const row = await db.attestationSetting.findUnique({ where: { orgId } });
  const pending = await db.attestationSync.count({ where: { orgId, dirtyAt: { not: null } } });
  const published = await db.attestationSync.aggregate({ where: { orgId }, _max: { publishedAt: true } });
  const config = attestationConfigFromEnv();
  return {
    enabled: row?.enabled ?? DEFAULTS.enabled,
    publishCountry: row?.publishCountry ?? DEFAULTS.publishCountry,
    validDays: row?.validDays ?? DEFAULTS.validDays,
    orgNumber: row ? row.orgNumber.toString() : null,
    contract: config?.contract ?? null,
    issuer: config ? `${config.issuer}@${config.permission}` : null,
    pending,
    lastPublishedAt: published._max.publishedAt?.toISOString() ?? null,
  };
}

export const getAttestationSettings = (ctx: ServiceContext) => view(ctx.db, ctx.org.id);

/** The organization's row, locked until the transaction ends; created with the defaults (and its number) when it has none. */
async function lockedRow(tx: Tx, orgId: string, now: Date): Promise<Settings> {
  const read = () =>
    tx.$queryRaw<Settings[]>`
      SELECT enabled, "publishCountry", "validDays" FROM attestation_settings WHERE "orgId" = ${orgId}::uuid FOR UPDATE`;
  const [row] = await read();
  if (row) return row;
  await tx.$executeRaw`
    INSERT INTO attestation_settings ("orgId", "updatedAt") VALUES (${orgId}::uuid, ${utcTimestamp(now)})
    ON CONFLICT ("orgId") DO NOTHING`;
  const [created] = await read();
  return created!;
}

/** Every account of the organization that has a binding, whatever its status: each has (or had) a row to follow. */
async function boundAccountIds(tx: Tx, orgId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ accountId: string }[]>`
    SELECT DISTINCT "accountId"::text AS "accountId" FROM account_bindings WHERE "orgId" = ${orgId}::uuid`;
  return rows.map((r) => r.accountId);
}

export async function setAttestationSettings(ctx: ServiceContext, input: AttestationSettingsInput): Promise<AttestationSettings> {
  if (input.enabled === true && !attestationConfigFromEnv())
    throw conflict("attestations_not_configured", "This deployment has no attestation contract configured (ATTESTATION_CONTRACT).");
  const orgId = ctx.org.id;
  return ctx.db.$transaction(async (tx) => {
    const now = ctx.now();
    const before = await lockedRow(tx, orgId, now);
    const after: Settings = { ...before };
    for (const f of FIELDS) if (input[f] !== undefined) (after as Record<string, unknown>)[f] = input[f];
    const changed = FIELDS.filter((f) => before[f] !== after[f]);
    if (changed.length) {
      const accountIds = await boundAccountIds(tx, orgId);
      // The marker writes only while the organization publishes: before the update when it stops
      // (the worker then removes the rows), after it when the result publishes.
      if (!after.enabled) await attestationChanged(tx, orgId, accountIds, now);
      await tx.attestationSetting.update({ where: { orgId }, data: Object.fromEntries(changed.map((f) => [f, after[f]])) });
      if (after.enabled) await attestationChanged(tx, orgId, accountIds, now);
      await appendAudit(
        tx,
        { orgId, actor: ctx.actor },
        {
          action: "attestations.settings_changed",
          subjectType: "organization",
          subject: orgId,
          data: {
            before: Object.fromEntries(changed.map((f) => [f, before[f]])),
            after: Object.fromEntries(changed.map((f) => [f, after[f]])),
            accounts: accountIds.length,
          },
        },
      );
    }
    return view(tx, orgId);
  });
}
