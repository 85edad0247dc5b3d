import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "./db/client";
import { client, createTestOrg } from "./testing/harness";
import { type Instance, startInstance, stopInstance } from "./testing/instance";

// A newcomer runs the service on another port without setting BI_PUBLIC_URL: every address the
// service hands out (the KYC link, the console invitation, the issuer DID) names that port.

let instance: Instance | undefined;
afterAll(() => stopInstance(instance));

describe("the public address when only PORT is set", () => {
  it("is http://localhost:<PORT>, in KYC links, invitation links and the issuer DID", async () => {
    instance = await startInstance({ BI_PUBLIC_URL: "" });
    const port = new URL(instance.base).port;
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(instance.base, org.apiKey);

    const kyc = await api.post("/v1/kyc/start", {});
    expect(kyc.status, kyc.text).toBe(200);
    expect(kyc.body.verificationUrl).toMatch(new RegExp(`^http://localhost:${port}/identity/sandbox/`));

    const issuer = await client(instance.base).get("/.well-known/did.json");
    expect(issuer.body.id).toBe(`did:web:localhost%3A${port}`);
    expect(kyc.body.personDid).toMatch(new RegExp(`^did:web:localhost%3A${port}:people:`));

    const email = `invitee-${Date.now()}@example.test`;
    expect((await api.post("/v1/admin/members", { email, role: "viewer" })).status).toBe(201);
    const mail = await (await getDb()).devOutboxMessage.findFirstOrThrow({ where: { to: email } });
    expect(mail.body).toContain(`http://localhost:${port}/console/invite/`);
  });
});
