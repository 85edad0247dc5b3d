import { randomBytes } from "node:crypto";
import type { DbOrTx } from "../db/client";
import { openUnder, sealUnder } from "./data-key-box";
import { openKey } from "./person-box";
import { seal } from "./secret-box";

/**
 * An account's contacts (email, phone) sealed under a data key of the account's own
 * (docs/data-protection.md, "Crypto-shredding"): contacts belong to an account, often before any
 * person is bound to it, so there is no person key to seal them under. The key is 32 random bytes
 * kept sealed with BI_ENCRYPTION_KEY in `accounts.dataKeySealed` (it rotates as that key does); a
 * contact is AES-256-GCM under it, as "a1.<accountId>.<iv>.<ciphertext+tag>" (base64url, the
 * account id as associated data). An erasure (or the retention run) sets the key to null, after
 * which no copy of a contact it sealed opens again. The key is read with the account's row on
 * every use, never cached. A value without the prefix was written in clear before contacts were
 * sealed (an email has an "@", a number a "+": neither is ever mistaken for a sealed value).
 */
const PREFIX = "a1";

/** A new account data key: the key itself and its stored form. */
export function newAccountKey(): { key: Buffer; sealed: string } {
  const key = randomBytes(32);
  return { key, sealed: seal(key.toString("base64")) };
}

export const isAccountSealed = (value: string) => value.startsWith(`${PREFIX}.`) && !value.includes("@");

export const sealContact = (key: Buffer, accountId: string, plaintext: string): string => sealUnder(PREFIX, key, accountId, plaintext);

/**
 * A stored contact as it reads: opened with the account's sealed data key, or as it is when it was
 * written in clear before. Null when there is none, or it cannot be opened (the key destroyed, or
 * sealed with a BI_ENCRYPTION_KEY id no longer configured).
 */
export function openContact(value: string | null, keySealed: string | null | undefined): string | null {
  if (value === null || !isAccountSealed(value)) return value;
  try {
    return keySealed ? openUnder(PREFIX, openKey(keySealed), value) : null;
  } catch {
    return null;
  }
}

/** Both contacts of an account row, opened. */
export const openContacts = (a: { email: string | null; phone: string | null; dataKeySealed: string | null }) => ({
  email: openContact(a.email, a.dataKeySealed),
  phone: openContact(a.phone, a.dataKeySealed),
});

/**
 * The account's data key, made if it has none, in one statement: of concurrent writers the first
 * sets it and every other gets that one (the row's lock orders them), so no contact is ever sealed
 * under a key that is then replaced. In a transaction the row stays locked until it ends.
 */
export async function accountKey(db: DbOrTx, accountId: string): Promise<Buffer> {
  const made = newAccountKey();
  const [row] = await db.$queryRaw<{ keySealed: string }[]>`
    UPDATE accounts SET "dataKeySealed" = coalesce("dataKeySealed", ${made.sealed}) WHERE id = ${accountId}::uuid
    RETURNING "dataKeySealed" AS "keySealed"`;
  if (!row) throw new Error("no such account");
  return row.keySealed === made.sealed ? made.key : openKey(row.keySealed);
}
