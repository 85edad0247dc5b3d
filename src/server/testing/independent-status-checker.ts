// Checks a credential's Bitstring Status List entries the way a relying party would, with Digital
// Bazaar's vc-bitstring-status-list (it verifies the status list credential with @digitalbazaar/vc
// and the eddsa-jcs-2022 suite). Contexts and the issuer's DID document load offline; the status
// lists are fetched by `fetchList`, over HTTP from the service under test.
import { contexts as credentialContexts } from "@digitalbazaar/credentials-context";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import dataIntegrityContext from "@digitalbazaar/data-integrity-context";
import { createVerifyCryptosuite } from "@digitalbazaar/eddsa-jcs-2022-cryptosuite";
import { checkStatus } from "@digitalbazaar/vc-bitstring-status-list";

type DidDocument = { id: string; verificationMethod: Array<Record<string, unknown>>; assertionMethod: string[] };

export type StatusCheck = { verified: boolean; error?: string; revocation?: boolean; suspension?: boolean };

export async function checkStatusWithDigitalBazaar(
  credential: unknown,
  didDocument: DidDocument,
  fetchList: (url: string) => Promise<unknown>,
): Promise<StatusCheck> {
  const contexts = new Map<string, unknown>([...credentialContexts, ...(dataIntegrityContext.contexts as Map<string, unknown>)]);
  const documentLoader = async (url: string) => {
    if (contexts.has(url)) return { contextUrl: null, documentUrl: url, document: contexts.get(url) };
    const [base, fragment] = url.split("#");
    if (base === didDocument.id && !fragment) return { contextUrl: null, documentUrl: url, document: didDocument };
    const method = didDocument.verificationMethod.find((m) => m.id === url);
    if (method) return { contextUrl: null, documentUrl: url, document: { "@context": "https://w3id.org/security/multikey/v1", ...method } };
    if (/\/credentials\/status\//.test(url)) return { contextUrl: null, documentUrl: url, document: await fetchList(url) };
    throw new Error(`document not available offline: ${url}`);
  };
  const suite = new DataIntegrityProof({ cryptosuite: createVerifyCryptosuite() });
  const result = await checkStatus({ credential: structuredClone(credential), documentLoader, suite, verifyMatchingIssuers: true });
  if (!result.verified) return { verified: false, error: String(result.error?.message ?? result.error ?? "status not verified") };
  const out: StatusCheck = { verified: true };
  for (const r of result.results as Array<{ credentialStatus: { statusPurpose: "revocation" | "suspension" }; status: boolean }>) {
    out[r.credentialStatus.statusPurpose] = r.status;
  }
  return out;
}
