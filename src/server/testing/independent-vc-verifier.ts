// An independent eddsa-jcs-2022 verifier for tests: Digital Bazaar's data-integrity suite with
// jsonld-signatures, every document loaded offline (contexts from their npm packages, the issuer's
// DID document as given).
import { contexts as credentialContexts } from "@digitalbazaar/credentials-context";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import dataIntegrityContext from "@digitalbazaar/data-integrity-context";
import { createVerifyCryptosuite } from "@digitalbazaar/eddsa-jcs-2022-cryptosuite";
import jsigs from "jsonld-signatures";

type DidDocument = { id: string; verificationMethod: Array<Record<string, unknown>>; assertionMethod: string[] };

export type IndependentResult = { verified: boolean; error?: string; requested: string[] };

export async function verifyWithDigitalBazaar(credential: unknown, didDocument: DidDocument): Promise<IndependentResult> {
  const requested: string[] = [];
  const contexts = new Map<string, unknown>([...credentialContexts, ...(dataIntegrityContext.contexts as Map<string, unknown>)]);
  const documentLoader = async (url: string) => {
    requested.push(url);
    if (contexts.has(url)) return { contextUrl: null, documentUrl: url, document: contexts.get(url) };
    const [base, fragment] = url.split("#");
    if (base === didDocument.id && !fragment) return { contextUrl: null, documentUrl: url, document: didDocument };
    const method = didDocument.verificationMethod.find((m) => m.id === url);
    if (method) return { contextUrl: null, documentUrl: url, document: { "@context": "https://w3id.org/security/multikey/v1", ...method } };
    throw new Error(`document not available offline: ${url}`);
  };
  const suite = new DataIntegrityProof({ cryptosuite: createVerifyCryptosuite() });
  const purpose = new jsigs.purposes.AssertionProofPurpose({ controller: didDocument });
  const result = await jsigs.verify(structuredClone(credential), { suite, purpose, documentLoader });
  const error = result.verified ? undefined : String(result.error?.errors?.[0]?.message ?? result.error?.message ?? result.error);
  return { verified: result.verified, error, requested };
}
