import { randomBytes, randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { fromIp, trustLoopbackProxy, workAddress } from "../../testing/billing";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { documentedKeys } from "../../testing/keys";
import { issueProofToken } from "../contacts";

trustLoopbackProxy();

const PROD = {
  BI_ENV: "production",
  ...documentedKeys(),
  NEXTAUTH_SECRET: randomBytes(32).toString("base64"),
};
const saved = Object.fromEntries(Object.keys(PROD).map((k) => [k, process.env[k]]));

function production() {
  Object.assign(process.env, PROD);
  resetEnvCache();
}

afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
});

/** A spent-nothing signup proof, as the email OTP would issue it (production sends real email). */
async function proofFor(email: string) {
  const { db } = await testServer();
  return (await issueProofToken(db, { id: randomUUID(), orgId: null, channel: "email", purpose: "billing_signup", address: email })).token;
}

describe("environments", () => {
  it("a production deployment mints bi_ keys only, and they do not work on the sandbox", async () => {
    const { url } = await testServer();
    const email = workAddress("prod");
    const token = await proofFor(email);
    production();
    const res = await fromIp(url).post("/v1/billing/checkout", { emailProofToken: token, plan: "builder", organizationName: "Prod Co" });
    expect(res.status, res.text).toBe(201);
    expect(res.body.apiKey).toMatch(/^bi_(?!test_)/);
    expect((await client(url, res.body.apiKey).get("/v1/billing/usage")).status).toBe(200);
    delete process.env.BI_ENV;
    resetEnvCache();
    const onSandbox = await client(url, res.body.apiKey).get("/v1/billing/usage");
    expect(onSandbox.status).toBe(401);
    expect(onSandbox.body.error.details.reason).toBe("wrong_environment");
  });

  it("a sandbox deployment mints bi_test_ keys; sent to production they are 401 wrong_environment", async () => {
    const { url } = await testServer();
    const token = await proofFor(workAddress("sbx"));
    const res = await fromIp(url).post("/v1/billing/checkout", { emailProofToken: token, plan: "builder", organizationName: "Sandbox Co" });
    expect(res.body.apiKey).toMatch(/^bi_test_/);
    production();
    const refused = await client(url, res.body.apiKey).get("/v1/billing/usage");
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: "UNAUTHORIZED", details: { reason: "wrong_environment" } });
    expect(refused.body.error.message).toContain("sandbox");
  });

  it("sandbox helpers answer 404 in production", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    production();
    const transfer = await client(url, org.apiKey).post("/v1/sandbox/chain/transfer", {
      from: "a.bi",
      to: "b.bi",
      quantity: "1.0000 EOS",
      memo: "x",
    });
    expect(transfer.status).toBe(404);
    expect(transfer.body.error.code).toBe("NOT_FOUND");
    const complete = await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: randomUUID() });
    expect(complete.status).toBe(404);
    expect(complete.body.error.message).toBe("No such route.");
  });
});
