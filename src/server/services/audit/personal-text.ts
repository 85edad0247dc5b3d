import { issuerDid } from "../../crypto/issuer-keys";
import { sealForPerson } from "../../crypto/person-box";
import type { Tx } from "../../db/client";
import { personIdFromDid } from "../../platform/account-ref";
import { FREE_TEXT_KEYS, isFreeText } from "./free-text";

/**
 * What people write into an audit entry about a person (a clearing reason, an approver's notes,
 * a revocation reason) may name them, and the chain can never be rewritten: such text is sealed
 * under the person's data key before it is hashed (docs/data-protection.md, "The audit trail"),
 * so erasing the person turns it into ciphertext nobody can open, and the chain stays intact.
 * Reason codes (`sanctions_flag`, `key_changed`: lower-case identifiers) stay readable.
 */

/** The person an entry is about: its subject when that is a person, else the person its data names. */
function personOf(subjectType: string | null | undefined, subject: string | null | undefined, data: Record<string, unknown>) {
  const did = subjectType === "person" ? subject : typeof data.personDid === "string" ? data.personDid : null;
  return did ? personIdFromDid(issuerDid(), did) : null;
}

/** `data` with its free text sealed for the person the entry is about (unchanged when it is about nobody). */
export async function sealPersonalText(
  tx: Tx,
  orgId: string,
  entry: { subjectType?: string | null; subject?: string | null },
  data: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const personId = personOf(entry.subjectType, entry.subject, data);
  if (!personId) return data;
  const out = { ...data };
  for (const k of FREE_TEXT_KEYS) {
    const v = out[k];
    if (!isFreeText(v)) continue;
    out[k] = (await sealForPerson(tx, { id: personId, orgId }, v)) ?? "[erased]";
  }
  return out;
}
