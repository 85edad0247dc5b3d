import { describe, expect, it } from "vitest";
import { simulatedUpdateAuth } from "../../providers/chain/simulated-updateauth";
import { extraKey } from "../../testing/aml";
import { walletKey } from "../../testing/factories";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { boundAccount } from "../../testing/kyc-flow";
import { BindingView } from "./binding.schema";
import { watchBindingKeys } from "./key-watch";

describe("GET /v1/bindings/{id}", () => {
  it("answers a read key the binding as it stands and the credential the bind answer gave: active, suspended, revoked", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const bound = await boundAccount(url, api);
    const [listed] = (await api.get(`/v1/accounts/${encodeURIComponent(bound.accountDid)}`)).body.bindings;
    const reader = client(url, (await extraKey(db, org.orgId, "dashboard", ["read"])).raw);
    const path = `/v1/bindings/${listed.bindingId}`;

    const active = await reader.get(path);
    expect(active.status, active.text).toBe(200);
    expect(active.body).toEqual({
      bindingId: listed.bindingId,
      accountDid: bound.accountDid,
      personDid: bound.personDid,
      bindingVcHash: listed.bindingVcHash,
      status: "active",
      createdAt: listed.createdAt,
      revokedAt: null,
      credential: bound.credential,
    });
    const parsed = BindingView.safeParse(active.body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);

    // The account changes hands: the key watch suspends the binding, and the read says why.
    await simulatedUpdateAuth(db, bound.accountName, { ownerKeys: [walletKey().publicKey] });
    await watchBindingKeys(db);
    expect((await reader.get(path)).body).toEqual({ ...active.body, status: "suspended", suspendedFor: ["key_changed"] });

    const compliance = client(url, (await extraKey(db, org.orgId, "compliance", ["compliance_export"])).raw);
    const revoke = await compliance.post(`${path}/revoke`, { reason: "The account was sold" });
    expect(revoke.status, revoke.text).toBe(200);
    const revoked = await reader.get(path);
    expect(revoked.body).toEqual({ ...active.body, status: "revoked", revokedAt: revoke.body.revokedAt });
    expect(BindingView.safeParse(revoked.body).success).toBe(true);
  });

  it("another organization's binding is 404, and so is an id that is not a uuid or that names no binding", async () => {
    const { url } = await testServer();
    const a = await createTestOrg({ plan: "institutional" });
    const b = await createTestOrg({ plan: "institutional" });
    const bound = await boundAccount(url, client(url, a.apiKey));
    const [binding] = (await client(url, a.apiKey).get(`/v1/accounts/${encodeURIComponent(bound.accountDid)}`)).body.bindings;
    expect((await client(url, a.apiKey).get(`/v1/bindings/${binding.bindingId}`)).status).toBe(200);
    const stranger = await client(url, b.apiKey).get(`/v1/bindings/${binding.bindingId}`);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe("NOT_FOUND");
    expect(stranger.body.error.message).not.toBe("No such route.");
    expect(stranger.text).not.toContain(bound.accountDid);
    expect((await client(url, a.apiKey).get("/v1/bindings/nope")).status).toBe(404);
    expect((await client(url, a.apiKey).get("/v1/bindings/5f0c2a8e-3b7d-4e21-9c4a-8d2f1e6b7a90")).status).toBe(404);
  });
});
