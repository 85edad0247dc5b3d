import { getDb } from "@/server/db/client";
import { consentView } from "@/server/services/wallet";
// The KYC domain registers the EU wallet identity verification's kind of request (its claims in words).
import "@/server/services/kyc";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What the consent page and its status poll read of a presentation request (consentView: who asks,
 * for which claims and why, never a value), or null when the id names none. Server side only: the
 * page imports this module, never the database itself.
 */
export async function loadConsent(id: string) {
  if (!UUID.test(id)) return null;
  return consentView(await getDb(), id);
}
