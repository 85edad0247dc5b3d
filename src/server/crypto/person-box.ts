import { randomBytes } from "node:crypto";
import { type DbOrTx, Prisma } from "../db/client";
import { openUnder, sealUnder } from "./data-key-box";
import { open, seal } from "./secret-box";

/**
 * Personal values sealed under a key of the person's own (docs/data-protection.md,
 * "Crypto-shredding"). Each person has one data key: 32 random bytes, kept sealed with
 * BI_ENCRYPTION_KEY in `person_keys` (so it rotates as that key does: the first key id seals, all
 * open). A value is AES-256-GCM under it, as "p1.<personId>.<iv>.<ciphertext+tag>" (base64url).
 * Erasure destroys the key, after which nothing it sealed opens again, wherever a copy of the
 * ciphertext went. Keys are never cached across calls: an erasure on one instance takes effect
 * on every instance at once.
 */
const PREFIX = "p1";

/** The person's data key, made on first use; null once the person has been erased. */
export async function personKey(db: DbOrTx, person: { id: string; orgId: string }): Promise<Buffer | null> {
  // One round trip: a new key is written, or the no-op update answers the key already there
  // (ON CONFLICT DO NOTHING would answer no row for it).
  const rows = await db.$queryRaw<{ keySealed: string | null }[]>`
    INSERT INTO person_keys ("personId", "orgId", "keySealed")
    VALUES (${person.id}::uuid, ${person.orgId}::uuid, ${seal(randomBytes(32).toString("base64"))})
    ON CONFLICT ("personId") DO UPDATE SET "personId" = person_keys."personId"
    RETURNING "keySealed"`;
  const keySealed = rows[0]?.keySealed;
  return keySealed ? openKey(keySealed) : null;
}

/** The statement that writes a new person's data key (made by the caller), for a write that commits with the person. */
export const personKeyInsertSql = (person: { id: string; orgId: string }, key: Buffer) =>
  Prisma.sql`INSERT INTO person_keys ("personId", "orgId", "keySealed") VALUES (${person.id}::uuid, ${person.orgId}::uuid, ${seal(key.toString("base64"))})`;

/** A sealed data key as `person_keys.keySealed` holds it, opened. */
export function openKey(keySealed: string): Buffer {
  return Buffer.from(open(keySealed), "base64");
}

export const sealWithKey = (key: Buffer, personId: string, plaintext: string): string => sealUnder(PREFIX, key, personId, plaintext);

export const isPersonSealed = (value: string) => value.startsWith(`${PREFIX}.`);

/** The person a sealed value belongs to. */
export const sealedPersonId = (value: string) => value.split(".")[1] ?? "";

/** Opens a value sealed with sealWithKey under `key`; throws when it was not sealed for it. */
export const openWithKey = (key: Buffer, value: string): string => openUnder(PREFIX, key, value);

/** Seals `plaintext` for the person; null when the person has been erased (nothing is kept for them). */
export async function sealForPerson(db: DbOrTx, person: { id: string; orgId: string }, plaintext: string): Promise<string | null> {
  const key = await personKey(db, person);
  return key ? sealWithKey(key, person.id, plaintext) : null;
}

/** Opens a person-sealed value; null when the person's key is gone (erased). */
export async function openForPerson(db: DbOrTx, value: string): Promise<string | null> {
  const row = await db.personKey.findUnique({ where: { personId: sealedPersonId(value) }, select: { keySealed: true } });
  return row?.keySealed ? openWithKey(openKey(row.keySealed), value) : null;
}

/** Destroys the person's data key, in the erasure's transaction. A key never made is recorded as destroyed too. */
export async function destroyPersonKey(tx: DbOrTx, person: { id: string; orgId: string }, at: Date): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO person_keys ("personId", "orgId", "keySealed", "destroyedAt")
    VALUES (${person.id}::uuid, ${person.orgId}::uuid, NULL, ${at})
    ON CONFLICT ("personId") DO UPDATE SET "keySealed" = NULL, "destroyedAt" = coalesce(person_keys."destroyedAt", ${at})`;
}

/**
 * Opens a stored value with the person's sealed data key as `person_keys.keySealed` holds it:
 * person-sealed values with that key, values sealed before person keys existed with
 * BI_ENCRYPTION_KEY alone. Null when it cannot be opened (the key destroyed by erasure, or a
 * retired BI_ENCRYPTION_KEY id).
 */
export function openStored(value: string, keySealed: string | null | undefined): string | null {
  try {
    if (!isPersonSealed(value)) return open(value);
    return keySealed ? openWithKey(openKey(keySealed), value) : null;
  } catch {
    return null;
  }
}

/**
 * A column that holds a value sealed under the person's key, or one written in clear before that
 * column was sealed (until the person data migration reaches it): opened, or as it is. Null once
 * the person's key is gone.
 */
export function openPersonal(value: string, keySealed: string | null | undefined): string | null {
  return isPersonSealed(value) ? openStored(value, keySealed) : value;
}
