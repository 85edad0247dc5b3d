import { describe, expect, it } from "vitest";
import { extraKey } from "../../testing/aml";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { checkStatusWithDigitalBazaar } from "../../testing/independent-status-checker";
import { verifyWithDigitalBazaar } from "../../testing/independent-vc-verifier";
import { boundAccount } from "../../testing/kyc-flow";

/** A relying party's fetch of a status list: our URL's path, asked of the service under test. */
const listFetcher = (url: string) => async (listUrl: string) => {
  const res = await call(url, "GET", new URL(listUrl).pathname);
  expect(res.status).toBe(200);
  return res.body;
};

async function relyingPartyCheck(url: string, credential: unknown) {
  const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
  return checkStatusWithDigitalBazaar(credential, issuer, listFetcher(url));
}

describe("binding credentials carry their status", () => {
  it("a fresh credential has revocation and suspension entries at random positions, and Digital Bazaar reports it valid", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { credential } = await boundAccount(url, api);
    const entries = credential.credentialStatus as Array<Record<string, string>>;
    expect(entries.map((e) => e.statusPurpose).sort()).toEqual(["revocation", "suspension"]);
    for (const e of entries) {
      expect(e.type).toBe("BitstringStatusListEntry");
      expect(e.statusListCredential).toMatch(/^http:\/\/localhost:3000\/credentials\/status\/[0-9a-f-]{36}$/);
      expect(e.id).toBe(`${e.statusListCredential}#${e.statusListIndex}`);
    }
    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    expect((await verifyWithDigitalBazaar(credential, issuer)).verified).toBe(true);
    expect(await relyingPartyCheck(url, credential)).toEqual({ verified: true, revocation: false, suspension: false });
    // The list's own signature is checked: a list with a flipped bit does not verify.
    const forged = await checkStatusWithDigitalBazaar(credential, issuer, async (listUrl) => {
      const list = await listFetcher(url)(listUrl);
      const { BitstringStatusList } = await import("@digitalbazaar/vc-bitstring-status-list");
      const bits = await BitstringStatusList.decode({ encodedList: list.credentialSubject.encodedList });
      for (const e of entries) if (e.statusListCredential === listUrl) bits.setStatus(Number(e.statusListIndex), true);
      return { ...list, credentialSubject: { ...list.credentialSubject, encodedList: await bits.encode() } };
    });
    expect(forged.verified).toBe(false);

    // A second binding lands elsewhere: positions are drawn, not counted up.
    const second = await boundAccount(url, api);
    const indexes = [credential, second.credential].map((c) => Number(c.credentialStatus[0].statusListIndex));
    expect(indexes[0]).not.toBe(indexes[1]! - 1);
    const lists = await db.statusList.findMany();
    expect(lists.every((l) => l.size >= 131_072)).toBe(true);
  });

  it("serves the list with caching headers, an ETag and 304 for If-None-Match; an unknown list is 404 in the envelope", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const { credential } = await boundAccount(url, client(url, org.apiKey));
    const path = new URL(credential.credentialStatus[0].statusListCredential).pathname;
    const first = await fetch(url + path);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const again = await fetch(url + path, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    const other = await call(url, "GET", "/credentials/status/2b9f4f0e-0000-4000-8000-000000000000");
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe("NOT_FOUND");
  });
});

describe("POST /v1/bindings/{id}/revoke", () => {
  it("revokes: the bit, the account back to provisional, identity.unbound and the audit entry; Digital Bazaar then says revoked", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { credential, accountDid, personDid } = await boundAccount(url, api);
    const account = await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`);
    const binding = account.body.bindings[0];
    expect(binding).toMatchObject({ personDid, status: "active", suspendedFor: [] });
    expect(account.body.revokedBindings).toEqual([]);
    const listPath = new URL(credential.credentialStatus.find((e: any) => e.statusPurpose === "revocation").statusListCredential).pathname;
    const etagBefore = (await fetch(url + listPath)).headers.get("etag");

    expect((await api.post(`/v1/bindings/${binding.bindingId}/revoke`, {})).status).toBe(400);
    const res = await api.post(`/v1/bindings/${binding.bindingId}/revoke`, { reason: "Customer closed their account" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ bindingId: binding.bindingId, status: "revoked", lifecycle: "provisional", accountDid, personDid });

    expect(await relyingPartyCheck(url, credential)).toEqual({ verified: true, revocation: true, suspension: false });
    expect((await fetch(url + listPath, { headers: { "if-none-match": etagBefore! } })).status).toBe(200);
    const after = await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`);
    // `bindings` keeps only bindings that are not revoked (the contract); the revoked one is listed apart, with when and why.
    expect(after.body).toMatchObject({ lifecycle: "provisional", bindings: [] });
    expect(after.body.revokedBindings).toEqual([
      {
        bindingId: binding.bindingId,
        personDid,
        bindingVcHash: binding.bindingVcHash,
        createdAt: binding.createdAt,
        status: "revoked",
        revokedAt: res.body.revokedAt,
        reason: "Customer closed their account",
      },
    ]);
    // Another organization's key still cannot read the account at all.
    const stranger = await createTestOrg({ plan: "institutional" });
    expect((await client(url, stranger.apiKey).get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).status).toBe(404);
    const events = await db.outboxEvent.findMany({ where: { orgId: org.orgId, event: "identity.unbound" } });
    expect(events.map((e) => e.payload)).toEqual([
      { accountDid, personDid, bindingVcHash: binding.bindingVcHash, reason: "Customer closed their account" },
    ]);
    const audit = await db.auditEntry.findMany({ where: { orgId: org.orgId, action: "identity.unbound" } });
    expect(audit).toHaveLength(1);
    expect((await api.post(`/v1/bindings/${binding.bindingId}/revoke`, { reason: "again" })).body.error.details).toMatchObject({
      reason: "already_revoked",
    });
  });

  it("20 concurrent revokes of one binding revoke once", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { accountDid } = await boundAccount(url, api);
    const [binding] = (await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).body.bindings;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.post(`/v1/bindings/${binding.bindingId}/revoke`, { reason: `race ${i}` })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "identity.unbound" } })).toBe(1);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "identity.unbound" } })).toBe(1);
    expect(await db.credentialStatusEntry.count({ where: { bindingId: binding.bindingId, set: true } })).toBe(1);
  });

  it("needs the compliance_export scope: a wallet-bind backend's bind_write key is refused and the binding stays active", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const { accountDid } = await boundAccount(url, client(url, org.apiKey));
    const [binding] = (await client(url, org.apiKey).get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).body.bindings;
    const walletBackend = client(url, (await extraKey(db, org.orgId, "wallet backend", ["read", "bind_write", "unlock_write"])).raw);
    const refused = await walletBackend.post(`/v1/bindings/${binding.bindingId}/revoke`, { reason: "not my call" });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.details).toMatchObject({ reason: "missing_scope" });
    expect(await db.accountBinding.findUniqueOrThrow({ where: { id: binding.bindingId } })).toMatchObject({
      status: "active",
      revokedAt: null,
    });
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "identity.unbound" } })).toBe(0);

    const compliance = client(url, (await extraKey(db, org.orgId, "compliance", ["compliance_export"])).raw);
    const revoked = await compliance.post(`/v1/bindings/${binding.bindingId}/revoke`, { reason: "Compliance ended it" });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toMatchObject({ bindingId: binding.bindingId, status: "revoked" });
  });

  it("another organization's binding is 404, and so is an id that is not a uuid", async () => {
    const { url } = await testServer();
    const a = await createTestOrg({ plan: "institutional" });
    const b = await createTestOrg({ plan: "institutional" });
    const { accountDid } = await boundAccount(url, client(url, a.apiKey));
    const [binding] = (await client(url, a.apiKey).get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).body.bindings;
    expect((await client(url, b.apiKey).post(`/v1/bindings/${binding.bindingId}/revoke`, { reason: "not mine" })).status).toBe(404);
    expect((await client(url, a.apiKey).post("/v1/bindings/nope/revoke", { reason: "bad id" })).status).toBe(404);
  });
});
