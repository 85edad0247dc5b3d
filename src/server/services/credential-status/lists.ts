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

/** A position of a status list: the list, the bit, and the purpose of the list. */
export type StatusPosition = { listId: string; index: number; purpose: StatusPurpose };

/**
 * The newest list of `purpose` from the cache (read when older than a minute), a new one with
 * `open: "new"`, one made when there is none with `open: "if-none"`; null when there is none and
 * `open` is `"never"`.
 */
async function currentList(db: DbOrTx, purpose: StatusPurpose, open: "new" | "if-none" | "never"): Promise<string | null> {
  let cached = listCache.get(purpose);
  if (open === "new" || !cached || Date.now() - cached.readAt > LIST_CACHE_MS) {
    const list =
      (open !== "new" && (await newestList(db, purpose))) ||
      (open === "never" ? null : await db.statusList.create({ data: { purpose, size: STATUS_LIST_SIZE }, select: { id: true } }));
    if (!list) return null;
    cached = { id: list.id, readAt: Date.now() };
    listCache.set(purpose, cached);
  }
  return cached.id;
}

/**
 * Positions for a new binding drawn in the process, to be written by the caller's own statement
 * (`statusPositionSql`, which claims a position only if free): the newest list of each purpose
 * from the cache (read when older than a minute), a random index in it. The primary key
 * (listId, index) makes a taken position a no-op, so concurrent binds never share one; with
 * `newLists` (after several draws in a row hit taken positions, the list being dense) a new list
 * is opened per purpose first: lists fill to most of their length, never in issue order.
 */
export async function drawStatusPositions(db: DbOrTx, newLists = false): Promise<StatusPosition[]> {
  const out: StatusPosition[] = [];
  for (const purpose of STATUS_PURPOSES)
    out.push({ listId: (await currentList(db, purpose, newLists ? "new" : "if-none"))!, index: randomInt(STATUS_LIST_SIZE), purpose });
  return out;
}

/** Random positions per purpose that a caller's read checks (`takenStatusSql`) before it draws. */
export const STATUS_CANDIDATES = 16;
export type StatusCandidates = { purpose: StatusPurpose; listId: string; indexes: number[] }[];

/**
 * Several random positions of each purpose's current list, so that the caller's own read can say
 * which are taken (`takenStatusSql`) and `pickStatusPositions` takes a free one. A draw that only
 * learns at the write that its position was taken fails the statement (and, in a group commit, the
 * group's): as a list fills, that became most of the cost of a bind. The first free candidate of a
 * random order is a uniformly random free position, as a redraw until free would be.
 */
export async function statusCandidates(db: DbOrTx): Promise<StatusCandidates> {
  const out: StatusCandidates = [];
  for (const purpose of STATUS_PURPOSES) {
    // A request that may yet be refused opens no list: without one, the write's draw opens it.
    const listId = await currentList(db, purpose, "never");
    if (listId) out.push({ purpose, listId, indexes: Array.from({ length: STATUS_CANDIDATES }, () => randomInt(STATUS_LIST_SIZE)) });
  }
  return out;
}

/** Columns for the caller's read, each after a comma (`"statusTaken0"`, `"statusTaken1"`, … in the candidates' order): the candidate indexes already taken. */
export const takenStatusSql = (candidates: StatusCandidates): Prisma.Sql =>
  !candidates.length
    ? Prisma.empty
    : Prisma.join(
        candidates.map(
          (c, i) =>
            Prisma.sql`, (SELECT coalesce(array_agg(index), '{}') FROM credential_status_entries
                      WHERE "listId" = ${c.listId}::uuid AND index = ANY(${c.indexes}::int[])) AS ${Prisma.raw(`"statusTaken${i}"`)}`,
        ),
        "",
      );

/** A free candidate of each purpose given what the read found taken; null when a purpose has no list yet or every candidate was taken (the write then draws). */
export function pickStatusPositions(candidates: StatusCandidates, row: Record<string, unknown>): StatusPosition[] | null {
  if (candidates.length !== STATUS_PURPOSES.length) return null;
  const out: StatusPosition[] = [];
  for (const [i, c] of candidates.entries()) {
    const taken = new Set((row[`statusTaken${i}`] as number[] | undefined) ?? []);
    const index = c.indexes.find((n) => !taken.has(n));
    if (index === undefined) return null;
    out.push({ listId: c.listId, index, purpose: c.purpose });
  }
  return out;
}

/** The statement that claims a drawn position for a binding: it inserts one row, or none when the position is taken. */
export const statusPositionSql = (p: StatusPosition, bindingId: string) =>
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
