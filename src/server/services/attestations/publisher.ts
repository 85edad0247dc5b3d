import { type AttestationPublisher, attestationConfigFromEnv, createAttestationPublisher } from "../../providers/chain/attestation";

let cached: { publisher: AttestationPublisher | null } | undefined;

/**
 * This deployment's attestation publisher, from ATTESTATION_* (docs/api/guides/onchain.md,
 * "Publishing from the service"); null when no contract is configured, and then nothing is published.
 */
export function defaultAttestationPublisher(): AttestationPublisher | null {
  if (!cached) {
    const config = attestationConfigFromEnv();
    cached = { publisher: config ? createAttestationPublisher(config) : null };
  }
  return cached.publisher;
}
