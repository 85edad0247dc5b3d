import { randomInt } from "node:crypto";
import { publicUrl } from "@/env";
import type { StatusPurpose } from "@/generated/prisma/client.ts";
import { type DbOrTx, Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";

/** The spec's minimum list length (W3C Bitstring Status List v1.0, §6.1): 16 KB of bits. */
export const STATUS_LIST_SIZE = 131_072;

/** Draws before a list counts as too full and a fresh one is opened. */
export const DRAWS_BEFORE_NEW_LIST = 8;

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

async function newestList(tx: DbOrTx, purpose: StatusPurpose) {
  return tx.statusList.findFirst({ where: { purpose }, orderBy: [{ createdAt: "desc" }, { id: "asc" }], select: { id: true } });
}

/** Newest list of each purpose as this process last read it (a minute): a draw needs no read of its own. */
const listCache = new Map<StatusPurpose, { id: string; readAt: number }>();
const LIST_CACHE_MS = 60_000;

/**
 * Positions for a new binding drawn in the process, to be written by the caller's own statement
 * (`statusPositionSql`, which claims a position only if free): the newest list of each purpose
 * from the cache (read when older than a minute), a random index in it. The primary key
 * (listId, index) makes a taken position a no-op, so concurrent binds never share one; with
 * `newLists` (after several draws in a row hit taken positions, the list being dense) a new list
 * is opened per purpose first: lists fill to most of their length, never in issue order.
 */
export async function drawStatusPositions(
  db: DbOrTx,
  newLists = false,
): Promise<{ listId: string; index: number; purpose: StatusPurpose }[]> {
  const out: { listId: string; index: number; purpose: StatusPurpose }[] = [];
  for (const purpose of STATUS_PURPOSES) {
    let cached = listCache.get(purpose);
    if (newLists || !cached || Date.now() - cached.readAt > LIST_CACHE_MS) {
      const list =
        (!newLists && (await newestList(db, purpose))) ||
        (await db.statusList.create({ data: { purpose, size: STATUS_LIST_SIZE }, select: { id: true } }));
      cached = { id: list.id, readAt: Date.now() };
      listCache.set(purpose, cached);
    }
    out.push({ listId: cached.id, index: randomInt(STATUS_LIST_SIZE), purpose });
  }
  return out;
}

/** The statement that claims a drawn position for a binding: it inserts one row, or none when the position is taken. */
export const statusPositionSql = (p: { listId: string; index: number; purpose: StatusPurpose }, bindingId: string) =>
  Prisma.sql`INSERT INTO credential_status_entries ("listId", index, purpose, "bindingId")
             VALUES (${p.listId}::uuid, ${p.index}, ${p.purpose}::"StatusPurpose", ${bindingId}::uuid)
             ON CONFLICT ("listId", index) DO NOTHING`;

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
