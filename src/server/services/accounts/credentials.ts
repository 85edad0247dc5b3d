import { type JsonObject, signEddsaJcs2022 } from "../../crypto/data-integrity";
import { sha256Hex } from "../../crypto/hash";
import { issuerDid, issuerSigningKey, verificationMethodId } from "../../crypto/issuer-keys";
import { jcs } from "../../crypto/jcs";

export const VC_CONTEXT_V2 = "https://www.w3.org/ns/credentials/v2";

/**
 * The AccountBinding credential (docs/api/contract-decisions.md §5): VC Data Model 2.0, issued by this
 * deployment's did:web, secured with eddsa-jcs-2022 by the current issuer key. `bindingVcHash`
 * is the hex SHA-256 of the JCS form of the signed credential.
 */
export function issueAccountBindingCredential(input: {
  bindingId: string;
  personDid: string;
  accountDid: string;
  kycLevel: string;
  /** The person's id for this organization (services/kyc/unique-person.ts): lets a relying party count humans. */
  pairwiseId?: string | null;
  issuedAt: Date;
  /** Bitstring Status List entries (revocation, suspension); absent on credentials issued before status existed. */
  credentialStatus?: JsonObject[];
}) {
  const key = issuerSigningKey();
  const unsigned: JsonObject = {
    "@context": [VC_CONTEXT_V2],
    id: `urn:uuid:${input.bindingId}`,
    type: ["VerifiableCredential", "AccountBindingCredential"],
    issuer: issuerDid(),
    validFrom: input.issuedAt.toISOString().replace(/\.\d{3}Z$/, "Z"),
    credentialSubject: {
      id: input.personDid,
      account: input.accountDid,
      kycLevel: input.kycLevel,
      ...(input.pairwiseId ? { pairwiseId: input.pairwiseId } : {}),
    },
    ...(input.credentialStatus ? { credentialStatus: input.credentialStatus } : {}),
  };
  const credential = signEddsaJcs2022(unsigned, {
    secretKey: key.secretKey,
    verificationMethod: verificationMethodId(key),
    created: input.issuedAt,
  });
  return { credential, bindingVcHash: bindingVcHash(credential), verificationMethod: verificationMethodId(key) };
}

export const bindingVcHash = (credential: unknown) => sha256Hex(jcs(credential));
