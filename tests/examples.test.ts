import fs from "node:fs";
import { PrivateKey } from "@wharfkit/antelope";
import { beforeAll, describe, expect, it } from "vitest";
import { bindWithWharfKit } from "../examples/typescript/bind-with-wharfkit";
import { createBindIdentityClient, dataOf } from "../examples/typescript/client";
import { SCHEMA_FILE, schemaTypes } from "../examples/typescript/generate-schema";
import { quickstart } from "../examples/typescript/quickstart";
import { handleWebhook } from "../examples/typescript/verify-webhook";
import { signedHeaders } from "../src/server/services/webhooks/delivery";
import { call, createTestOrg, type TestOrg, testServer } from "../src/server/testing/harness";
import { verifyWithDigitalBazaar } from "../src/server/testing/independent-vc-verifier";

/** The TypeScript examples tenants copy, run against the real /v1 pipeline. */
describe("examples/typescript", () => {
  let url: string;
  let org: TestOrg;
  let signingSecret: string;

  beforeAll(async () => {
    url = (await testServer()).url;
    org = await createTestOrg({ plan: "builder" });
    const enabled = await call(url, "POST", "/v1/admin/signing/enable", { key: org.apiKey });
    expect(enabled.status).toBe(200);
    signingSecret = enabled.body.signingSecret;
  });

  it("schema.d.ts is what `npm run openapi:types` generates from the current document", async () => {
    const fresh = await schemaTypes();
    expect(fresh === fs.readFileSync(SCHEMA_FILE, "utf8"), "examples/typescript/schema.d.ts is stale: run npm run openapi:types").toBe(
      true,
    );
  }, 60_000);

  it("quickstart.ts creates a free account with a verified email through signed (version 2) requests", async () => {
    const api = createBindIdentityClient({ baseUrl: url, apiKey: org.apiKey, signingSecret });
    const ownerPublicKey = PrivateKey.generate("K1").toPublic().toString();
    const { tenant, account, transactionId } = await quickstart(api, { email: `quickstart-${Date.now()}@example.com`, ownerPublicKey });

    expect(tenant).toMatchObject({ organizationId: org.orgId, signingEnabled: true });
    expect(account).toMatchObject({ lifecycle: "provisional", ownerPublicKey, contacts: { emailVerified: true } });
    expect(account.accountDid).toMatch(/^did:antelope:[a-z0-9]+:[a-z1-5]{12}$/);
    expect(transactionId).toEqual(expect.any(String));
    const stored = await org.db.account.findFirst({ where: { orgId: org.orgId, did: account.accountDid } });
    expect(stored?.emailVerifiedAt).toBeInstanceOf(Date);
  });

  it("bind-with-wharfkit.ts binds an account with a WharfKit Session and the private-key wallet plugin; the credential verifies", async () => {
    const api = createBindIdentityClient({ baseUrl: url, apiKey: org.apiKey, signingSecret });
    const wallet = PrivateKey.generate("K1");
    const bound = await bindWithWharfKit(api, { baseUrl: url, wallet });
    expect(bound).toMatchObject({ bound: true, lifecycle: "bound" });
    const binding = await org.db.accountBinding.findFirstOrThrow({ where: { orgId: org.orgId, bindingVcHash: bound.bindingVcHash } });
    expect(binding).toMatchObject({ signingKeys: [wallet.toPublic().toString()] });
    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    expect((await verifyWithDigitalBazaar(bound.credential, issuer)).verified).toBe(true);
  });

  it("the signing middleware is what lets those requests in: unsigned or wrongly signed ones are refused", async () => {
    const unsigned = createBindIdentityClient({ baseUrl: url, apiKey: org.apiKey });
    const res = await unsigned.GET("/v1/tenant");
    expect(res.response.status).toBe(401);
    expect(res.error?.error.details).toMatchObject({ reason: "signature_required" });
    expect(() => dataOf(res)).toThrow(/401 UNAUTHORIZED: .*\[.+\]/);

    const wrong = createBindIdentityClient({ baseUrl: url, apiKey: org.apiKey, signingSecret: `${signingSecret}x` });
    const refused = await wrong.GET("/v1/accounts/name-available", { params: { query: { name: "abc" } } });
    expect(refused.response.status).toBe(401);
    expect(refused.error?.error.details).toMatchObject({ reason: "invalid_signature" });
  });

  it("the signature covers the query string: a query changed after signing is refused", async () => {
    const api = createBindIdentityClient({ baseUrl: url, apiKey: org.apiKey, signingSecret });
    api.use({ onRequest: ({ request }) => new Request(request.url.replace("name=abc", "name=abd"), request) });
    const res = await api.GET("/v1/accounts/name-available", { params: { query: { name: "abc" } } });
    expect(res.response.status).toBe(401);
    expect(res.error?.error.details).toMatchObject({ reason: "invalid_signature" });
  });

  it("verify-webhook.ts accepts a signed delivery once and refuses a forged one", async () => {
    const secret = "whsec_test_secret";
    const body = JSON.stringify({ id: "d-1", event: "account.created", tenantId: org.orgId, payload: { accountDid: "x" }, createdAt: "" });
    const seen = new Set<string>();
    const deliver = (headers: Record<string, string>) =>
      handleWebhook(new Request("http://receiver/", { method: "POST", headers, body }), secret, seen);

    expect((await deliver(signedHeaders({ id: "d-1", event: "account.created" }, body, secret))).status).toBe(204);
    expect([...seen]).toEqual(["d-1"]);
    expect((await deliver(signedHeaders({ id: "d-1", event: "account.created" }, body, secret))).status).toBe(204);
    expect([...seen]).toEqual(["d-1"]);

    const forged = await deliver(signedHeaders({ id: "d-1", event: "account.created" }, body, "another secret"));
    expect(forged.status).toBe(401);
    expect(await forged.text()).toBe("invalid_signature");
  });
});
