import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { verifyCredentialWithDidDocument } from "../../crypto/verify-credential";
import { verifyWithDigitalBazaar } from "../../testing/independent-vc-verifier";
import { bindingVcHash, issueAccountBindingCredential } from "./credentials";
import { issuerDidDocument } from "./did-documents";

const issue = () =>
  issueAccountBindingCredential({
    bindingId: "6f2c1f7e-3f53-4c1a-9d8e-0a1b2c3d4e5f",
    personDid: "did:web:localhost%3A3000:people:2b0c8c55-6d55-4c8e-9a43-1f0f5b9e7a11",
    accountDid: "did:antelope:sandbox:alicealice12",
    kycLevel: "basic-kyc",
    issuedAt: new Date("2026-11-23T10:00:00.000Z"),
  });

describe("AccountBinding credential (eddsa-jcs-2022)", () => {
  it("is a VC 2.0 credential whose hash is the SHA-256 of its JCS form", () => {
    const { credential, bindingVcHash: hash } = issue();
    expect(credential["@context"]).toEqual(["https://www.w3.org/ns/credentials/v2"]);
    expect(credential.type).toEqual(["VerifiableCredential", "AccountBindingCredential"]);
    expect(credential.issuer).toBe(issuerDidDocument().id);
    expect(credential.credentialSubject).toEqual({
      id: "did:web:localhost%3A3000:people:2b0c8c55-6d55-4c8e-9a43-1f0f5b9e7a11",
      account: "did:antelope:sandbox:alicealice12",
      kycLevel: "basic-kyc",
    });
    expect(credential.proof).toMatchObject({ type: "DataIntegrityProof", cryptosuite: "eddsa-jcs-2022", proofPurpose: "assertionMethod" });
    expect(issuerDidDocument().assertionMethod).toContain(credential.proof.verificationMethod);
    expect(hash).toBe(sha256Hex(jcs(credential)));
    expect(bindingVcHash(credential)).toBe(hash);
  });

  it("verifies with our verifier and with Digital Bazaar's independent implementation", async () => {
    const { credential } = issue();
    expect(verifyCredentialWithDidDocument(credential, issuerDidDocument())).toMatchObject({ verified: true });
    const independent = await verifyWithDigitalBazaar(credential, issuerDidDocument());
    expect(independent.error).toBeUndefined();
    expect(independent.verified).toBe(true);
  });

  const tampers: Array<[string, (c: any) => void]> = [
    ["the subject's account", (c) => (c.credentialSubject.account = "did:antelope:sandbox:mallory12345")],
    ["the subject's person", (c) => (c.credentialSubject.id = c.credentialSubject.id.replace(/.$/, "0"))],
    ["the KYC level", (c) => (c.credentialSubject.kycLevel = "full-kyc")],
    ["the issuer", (c) => (c.issuer = "did:web:evil.example")],
    ["validFrom", (c) => (c.validFrom = "2030-01-01T00:00:00Z")],
    ["the type", (c) => c.type.pop()],
    ["an added field", (c) => (c.credentialSubject.extra = true)],
    ["the proof's created time", (c) => (c.proof.created = "2020-01-01T00:00:00Z")],
    ["the proof value", (c) => (c.proof.proofValue = c.proof.proofValue.slice(0, -2) + (c.proof.proofValue.endsWith("A") ? "BB" : "AA"))],
  ];
  for (const [what, tamper] of tampers) {
    it(`fails in both verifiers when ${what} is changed`, async () => {
      const { credential } = issue();
      const changed = structuredClone(credential) as any;
      tamper(changed);
      expect(verifyCredentialWithDidDocument(changed, issuerDidDocument()).verified).toBe(false);
      expect((await verifyWithDigitalBazaar(changed, issuerDidDocument()).catch(() => ({ verified: false }))).verified).toBe(false);
    });
  }

  it("fails when the issuer's DID document does not list the key", () => {
    const { credential } = issue();
    const doc = { ...issuerDidDocument(), assertionMethod: [] };
    const out = verifyCredentialWithDidDocument(credential, doc);
    expect(out).toEqual({ verified: false, reason: expect.stringContaining("not an assertionMethod key") });
  });
});
