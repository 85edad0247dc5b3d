import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import { decodePublicKeyMultibase, issuerSigningKey, signEd25519 } from "../../crypto/issuer-keys";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { boundAccount } from "../../testing/kyc-flow";

describe("DID documents", () => {
  it("serves the issuer document at /.well-known/did.json with a Multikey that verifies issuer signatures", async () => {
    const { url } = await testServer();
    const res = await client(url).get("/.well-known/did.json");
    expect(res.status).toBe(200);
    expect(res.body.id).toBe("did:web:localhost%3A3000");
    const [vm] = res.body.verificationMethod;
    expect(vm.type).toBe("Multikey");
    expect(res.body.assertionMethod).toContain(vm.id);
    const msg = new TextEncoder().encode("checkpoint");
    const sig = signEd25519(msg, issuerSigningKey());
    expect(ed25519.verify(sig, msg, decodePublicKeyMultibase(vm.publicKeyMultibase))).toBe(true);
  });

  it("serves an organization's document with its KYB status only, and 404 in the envelope for unknown ids", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const ok = await client(url).get(`/orgs/${org.orgId}/did.json`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      "@context": ["https://www.w3.org/ns/did/v1"],
      id: `did:web:localhost%3A3000:orgs:${org.orgId}`,
      controller: "did:web:localhost%3A3000",
      kybStatus: "not_started",
    });
    const unknown = await client(url).get("/orgs/00000000-0000-4000-8000-000000000000/did.json");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("NOT_FOUND");
    const junk = await client(url).get("/people/not-a-uuid/did.json");
    expect(junk.status).toBe(404);
  });

  it("lets verifiers cache each document for a minute, and never an error", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const person = await db.person.create({ data: { orgId: org.orgId, kycStatus: "approved" } });
    for (const path of ["/.well-known/did.json", `/people/${person.id}/did.json`, `/orgs/${org.orgId}/did.json`]) {
      const res = await fetch(url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("cache-control"), path).toBe("public, max-age=60");
    }
    const unknown = await fetch(`${url}/orgs/00000000-0000-4000-8000-000000000000/did.json`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("cache-control")).toBeNull();
  });

  it("serves a person's document with the KYC status only", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const person = await db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", country: "GH", pepFlag: true } });
    const res = await client(url).get(`/people/${person.id}/did.json`);
    expect(res.status).toBe(200);
    expect(res.body.kycStatus).toBe("approved");
    expect(JSON.stringify(res.body)).not.toContain("GH");
  });

  it("shows each binding's status under its credential id, never the account", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { personDid, accountDid, credential } = await boundAccount(url, api);
    const personPath = `/people/${personDid.split(":").pop()}/did.json`;
    expect((await client(url).get(personPath)).body.bindings).toEqual([{ credentialId: credential.id, status: "active" }]);
    const [binding] = (await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).body.bindings;
    await api.post(`/v1/bindings/${binding.bindingId}/revoke`, { reason: "DID document test" });
    const after = await client(url).get(personPath);
    expect(after.body.bindings).toEqual([{ credentialId: credential.id, status: "revoked" }]);
    expect(JSON.stringify(after.body)).not.toContain(accountDid);
  });
});

describe("issuer key rotation", () => {
  it("keeps previous issuer keys resolvable in the DID document after rotation", async () => {
    const { url } = await testServer();
    const { ed25519: ed } = await import("@noble/curves/ed25519.js");
    const { publicKeyMultibase } = await import("../../crypto/issuer-keys");
    const { resetEnvCache } = await import("@/env");
    const retired = publicKeyMultibase(ed.getPublicKey(ed.utils.randomSecretKey()));
    process.env.BI_ISSUER_PREVIOUS_KEYS = retired;
    resetEnvCache();
    try {
      const res = await client(url).get("/.well-known/did.json");
      const keys = res.body.verificationMethod.map((m: { publicKeyMultibase: string }) => m.publicKeyMultibase);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(retired);
      expect(res.body.assertionMethod).toContain(`did:web:localhost%3A3000#${retired}`);
    } finally {
      delete process.env.BI_ISSUER_PREVIOUS_KEYS;
      resetEnvCache();
    }
  });
});
