import { isPersonSealed, openStored, openWithKey, personKey, sealedPersonId, sealWithKey } from "../../crypto/person-box";
import type { DbOrTx, Tx } from "../../db/client";

/**
 * What compliance officers write about a person on a case (docs/data-protection.md,
 * "Crypto-shredding"): the clearing and confirming reasons, the approver's notes, a case opened by
 * hand's reason, comments, and the `reason` and `notes` of the timeline events recording them.
 * Stored sealed under the data key of the person the case names, so erasing the person (which
 * destroys the key) leaves them unreadable wherever a copy of the database went. A case that
 * names no person (an account alone) has no key to seal under: its texts stay in clear.
 */

/** What a text sealed for an erased person reads as, and what is written for one. */
const ERASED_TEXT = "[erased]";

type CaseSubject = { orgId: string; personId: string | null };
type CaseTexts = { seal: (text: string) => string; open: <T extends string | null>(value: T) => T | string };

/**
 * The texts of one case, with the person's key read once: `seal` seals a text under it (writes
 * "[erased]" for a person already erased, and leaves the text as it is when the case names no
 * person), `open` reads a stored one back (see openCaseText). Call it inside the transition's
 * transaction, after the person's lock.
 */
export async function caseTexts(tx: Tx, c: CaseSubject): Promise<CaseTexts> {
  const personId = c.personId;
  if (!personId) return { seal: (text) => text, open: (value) => value };
  const key = await personKey(tx, { id: personId, orgId: c.orgId });
  return {
    seal: sealerFor(personId, key),
    open: (value) => openSealed(value, personId, (v) => (key ? openWithKey(key, v) : null)),
  };
}

/** Seals a case text under the person's data key, already read (null once erased: "[erased]" is written). */
export const sealerFor =
  (personId: string, key: Buffer | null) =>
  (text: string): string =>
    key ? sealWithKey(key, personId, text) : ERASED_TEXT;

/** The sealed data keys (`person_keys.keySealed`, null once erased) of these people, in one query: never cached. */
export async function caseKeys(db: DbOrTx, personIds: (string | null)[]): Promise<Map<string, string | null>> {
  const ids = [...new Set(personIds.filter((p): p is string => !!p))];
  if (!ids.length) return new Map();
  const rows = await db.personKey.findMany({ where: { personId: { in: ids } }, select: { personId: true, keySealed: true } });
  return new Map(rows.map((k) => [k.personId, k.keySealed]));
}

/**
 * A stored case text as the API shows it: opened when it is sealed for the case's person
 * ("[erased]" once their key is gone), as it is otherwise (a case naming nobody, a code, or a
 * text written before sealing that the person data migration has not reached yet).
 */
export function openCaseText(value: string, personId: string | null, keySealed: string | null | undefined): string;
export function openCaseText(value: string | null, personId: string | null, keySealed: string | null | undefined): string | null;
export function openCaseText(value: string | null, personId: string | null, keySealed: string | null | undefined): string | null {
  return openSealed(value, personId, (v) => openStored(v, keySealed));
}

function openSealed<T extends string | null>(value: T, personId: string | null, open: (sealed: string) => string | null): T | string {
  if (value === null || !personId || !isPersonSealed(value) || sealedPersonId(value) !== personId) return value;
  try {
    return open(value) ?? ERASED_TEXT;
  } catch {
    return ERASED_TEXT;
  }
}

/** The free-text keys of a timeline event's data that are sealed (an officer's reason, an approver's notes). */
const EVENT_TEXT_KEYS = ["reason", "notes"] as const;

/** An event's data with its officer texts sealed by `seal` (a null or absent text stays as it is). */
export function sealEventData<T extends Record<string, unknown>>(data: T, seal: (text: string) => string): T {
  const out: Record<string, unknown> = { ...data };
  for (const k of EVENT_TEXT_KEYS) {
    const v = out[k];
    if (typeof v === "string") out[k] = seal(v);
  }
  return out as T;
}

/** A stored event's data as the timeline shows it: its sealed texts opened (see openCaseText). */
export function openEventData(
  data: Record<string, unknown>,
  personId: string | null,
  keySealed: string | null | undefined,
): Record<string, unknown> {
  const out = { ...data };
  for (const k of EVENT_TEXT_KEYS) {
    const v = out[k];
    if (typeof v === "string") out[k] = openCaseText(v, personId, keySealed);
  }
  return out;
}
