import { randomInt } from "node:crypto";
import { publicUrl } from "@/env";
import type { StatusPurpose } from "@/generated/prisma/client.ts";
import type { DbOrTx, Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";

/** The spec's minimum list length (W3C Bitstring Status List v1.0, §6.1): 16 KB of bits. */
export const STATUS_LIST_SIZE = 131_072;

/** Draws before a list counts as too full and a fresh one is opened. */
const DRAWS_BEFORE_NEW_LIST = 8;

export const STATUS_PURPOSES = ["revocation", "suspension"] as const satisfies readonly StatusPurpose[];

/** Where a status list credential is published: this deployment's origin, so under the issuer's did:web host. */
export function statusListUrl(listId: string): string {
  return publicUrl(`/credentials/status/${listId}`);
}

export type CredentialStatusEntryJson = {
  id: string;
  type: "BitstringStatusListEntry";
  statusPurpose: StatusPurpose;
  statusListIndex: string;
  statusListCredential: string;
};

export function statusEntryJson(e: { listId: string; index: number; purpose: StatusPurpose }): CredentialStatusEntryJson {
  const list = statusListUrl(e.listId);
  return {
    id: `${list}#${e.index}`,
    type: "BitstringStatusListEntry",
    statusPurpose: e.purpose,
    statusListIndex: String(e.index),
    statusListCredential: list,
  };
}

async function newestList(tx: Tx, purpose: StatusPurpose) {
  return tx.statusList.findFirst({ where: { purpose }, orderBy: [{ createdAt: "desc" }, { id: "asc" }], select: { id: true } });
}

/**
 * One random free position in the newest list of a purpose. A position is claimed by inserting
 * its row (the primary key (listId, index) makes a taken one a no-op), so concurrent binds never
 * share one. When several draws in a row hit taken positions the list is dense enough that a
 * new one is opened; lists therefore fill to most of their length, never in issue order.
 */
async function claimPosition(tx: Tx, purpose: StatusPurpose, bindingId: string) {
  let list = await newestList(tx, purpose);
  for (;;) {
    if (list) {
      for (let draw = 0; draw < DRAWS_BEFORE_NEW_LIST; draw++) {
        const index = randomInt(STATUS_LIST_SIZE);
        const inserted = await tx.$executeRaw`
          INSERT INTO credential_status_entries ("listId", index, purpose, "bindingId")
          VALUES (${list.id}::uuid, ${index}, ${purpose}::"StatusPurpose", ${bindingId}::uuid)
          ON CONFLICT ("listId", index) DO NOTHING`;
        if (inserted === 1) return { listId: list.id, index, purpose };
      }
    }
    list = await tx.statusList.create({ data: { purpose, size: STATUS_LIST_SIZE }, select: { id: true } });
  }
}

/** A revocation and a suspension position for a new binding, as the credential's `credentialStatus` entries. */
export async function allocateStatus(tx: Tx, bindingId: string): Promise<CredentialStatusEntryJson[]> {
  const out: CredentialStatusEntryJson[] = [];
  for (const purpose of STATUS_PURPOSES) out.push(statusEntryJson(await claimPosition(tx, purpose, bindingId)));
  return out;
}

/**
 * Sets or clears a binding's bit of one purpose, in the caller's transaction: the bit is the
 * entry row, so it commits or rolls back with the binding change it expresses. Returns whether
 * the bit changed (false for a binding issued before status existed, which has no entry).
 */
export async function setStatusBit(tx: Tx, bindingId: string, purpose: StatusPurpose, value: boolean, at: Date): Promise<boolean> {
  const changed = await tx.credentialStatusEntry.updateMany({
    where: { bindingId, purpose, set: !value },
    data: { set: value, changedAt: at },
  });
  return changed.count > 0;
}

/**
 * `setStatusBit` for every binding of one organization at once (its erasure, org/erase.ts): one
 * statement however many bindings it has. Returns how many bits changed.
 */
export async function setOrganizationStatusBits(tx: Tx, orgId: string, purpose: StatusPurpose, value: boolean, at: Date): Promise<number> {
  return tx.$executeRaw`
    UPDATE credential_status_entries e SET set = ${value}, "changedAt" = ${utcTimestamp(at)}
    FROM account_bindings b
    WHERE b.id = e."bindingId" AND b."orgId" = ${orgId}::uuid AND e.purpose = ${purpose}::"StatusPurpose" AND e.set = ${!value}`;
}

/** The published bits of some bindings, per binding: purpose, list URL, index and whether the bit is set. */
export async function publishedStatusOf(db: DbOrTx, bindingIds: string[]) {
  const rows = bindingIds.length ? await db.credentialStatusEntry.findMany({ where: { bindingId: { in: bindingIds } } }) : [];
  const out = new Map<string, Array<CredentialStatusEntryJson & { set: boolean }>>();
  for (const r of rows.sort((a, b) => a.purpose.localeCompare(b.purpose))) {
    const list = out.get(r.bindingId!) ?? [];
    list.push({ ...statusEntryJson(r), set: r.set });
    out.set(r.bindingId!, list);
  }
  return out;
}
