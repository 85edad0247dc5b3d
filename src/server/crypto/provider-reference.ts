import { hmacSha256Hex } from "./hash";
import { deriveKey } from "./secret-box";

/**
 * How a KYC session is found by its provider's reference (the applicant id) while the reference
 * itself is sealed under the person's data key (`kyc_sessions.providerSessionIdHash`): a keyed
 * hash of the provider and the reference. Callbacks carry the provider and the applicant id, not
 * the organization, so neither does the hash; a database dump alone cannot test references
 * against it without BI_HASH_KEY.
 */
export const providerReferenceHash = (provider: string, reference: string) =>
  hmacSha256Hex(deriveKey("provider-session"), `${provider}\n${reference}`);

/**
 * The KYC sessions of `provider` whose reference is `reference`: by its keyed hash, or by value
 * for a reference written in clear before references were sealed (until the person data
 * migration reaches it).
 */
export function sessionsWithReference(provider: string, reference: string) {
  return { provider, OR: [{ providerSessionIdHash: providerReferenceHash(provider, reference) }, { providerSessionId: reference }] };
}
