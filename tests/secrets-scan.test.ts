import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { listenOperatorMetrics } from "@/server/metrics";
import { fromIp, growthCheckout, trustLoopbackProxy } from "@/server/testing/billing";
import { type ApiResponse, call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { webhookTestEnv } from "@/server/testing/webhook-drive";
import { startReceiver } from "@/server/testing/webhook-receiver";

// One run through the whole API with every log line captured (the service's logger and the access
// log, at the most verbose level), every error body and both metrics expositions kept. Then every
// secret the run handed out or was sent, and every raw email address and phone number it used, is
// looked for in that corpus: none may appear.

trustLoopbackProxy();

const lines: string[] = [];
const sink = () =>
  new Writable({
    write: (chunk, _enc, done) => {
      lines.push(String(chunk));
      done();
    },
  });
const g = globalThis as unknown as { __biLog?: unknown; __biAccessLog?: unknown };
const saved = { log: g.__biLog, access: g.__biAccessLog };

beforeAll(() => {
  g.__biLog = createLogger("trace", sink());
  g.__biAccessLog = createLogger("trace", sink(), { redact: false });
});
afterAll(() => {
  g.__biLog = saved.log;
  g.__biAccessLog = saved.access;
});

describe("secrets and personal data in logs, errors and metrics", () => {
  it("none of a full run's keys, codes, proofs, tokens, secrets, passwords, emails or phone numbers leak", async () => {
    webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    const { url } = await testServer();
    const db = await getDb();
    const secrets = new Set<string>();
    const errors: string[] = [];
    const keep = (res: ApiResponse) => {
      if (res.status >= 400) errors.push(res.text);
      return res;
    };

    const org = await createTestOrg({ plan: "institutional" });
    secrets.add(org.apiKey).add(org.consolePassword);
    const api = client(url, org.apiKey);

    // Keys: minted, used, revoked, and a wrong one presented.
    const minted = keep(await api.post("/v1/admin/api-keys", { name: "scan key", scopes: ["read"] }));
    secrets.add(minted.body.apiKey);
    keep(await client(url, minted.body.apiKey).get("/v1/tenant"));
    keep(await api.delete(`/v1/admin/api-keys/${minted.body.id}`));
    keep(await client(url, minted.body.apiKey).get("/v1/tenant"));
    const forged = `bi_test_${"x".repeat(40)}`;
    secrets.add(forged);
    keep(await client(url, forged).get("/v1/tenant"));

    // Contacts: email and phone codes, right and wrong, and their proofs.
    const email = `scan.person-${Date.now()}@example.test`;
    const phone = "+233207778899";
    const emailStart = keep(await api.post("/v1/email/otp/start", { email }));
    secrets.add(emailStart.body.devCode);
    keep(await api.post("/v1/email/otp/confirm", { challengeId: emailStart.body.challengeId, code: "000001" }));
    const emailProof = keep(
      await api.post("/v1/email/otp/confirm", { challengeId: emailStart.body.challengeId, code: emailStart.body.devCode }),
    );
    secrets.add(emailProof.body.emailProofToken);
    keep(await api.post("/v1/phone/otp/start", { phone }));
    const sms = await db.devOutboxMessage.findFirstOrThrow({ where: { to: phone, channel: "phone" }, orderBy: { createdAt: "desc" } });
    const smsCode = /(\d{6})/.exec(sms.body)![1]!;
    secrets.add(smsCode);

    // KYC: a create token handed out, then spent.
    const started = keep(await api.post("/v1/kyc/start", {}));
    const applicant = new URL(started.body.verificationUrl).pathname.split("/").pop()!;
    keep(await call(url, "POST", `/v1/sandbox/kyc/hosted/${applicant}`, { body: { outcome: "approved" } }));
    const status = keep(await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(started.body.personDid)}`));
    secrets.add(status.body.createToken);
    keep(
      await api.post("/v1/accounts/free", {
        ownerPublicKey: "not-a-key",
        kycCreateToken: status.body.createToken,
        emailProofToken: emailProof.body.emailProofToken,
      }),
    );

    // Signing and webhooks: secrets handed out once, then used.
    const signing = keep(await api.post("/v1/admin/signing/enable"));
    secrets.add(signing.body.signingSecret);
    keep(await api.get("/v1/tenant")); // unsigned: refused
    keep(await call(url, "POST", "/v1/admin/signing/disable", { key: org.apiKey, signWith: signing.body.signingSecret }));
    const receiver = await startReceiver();
    const hook = keep(await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["*"] }));
    secrets.add(hook.body.secret);
    receiver.close();

    // Console members and a public signup, with its proof, key and password.
    keep(await api.post("/v1/admin/members", { email: `member-${Date.now()}@example.test`, role: "viewer" }));
    const co = await growthCheckout(url);
    secrets.add(co.emailProofToken);
    keep(await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId }));
    keep(await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken: "ept_wrong" }));
    const revealed = keep(
      await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken: co.emailProofToken }),
    );
    secrets.add(revealed.body.apiKey).add(revealed.body.consolePassword);

    // Metrics, as a tenant and as the operator.
    const tenantMetrics = keep(await api.get("/v1/metrics")).text;
    const operator = await listenOperatorMetrics(0, "127.0.0.1");
    const operatorMetrics = await (await fetch(`${operator.url}/metrics`)).text();
    await operator.close();

    const personal = [email, phone, co.email, phone.slice(1)];
    const corpus = [...lines, ...errors, tenantMetrics, operatorMetrics].join("\n");
    expect(lines.length, "the run produced log lines to scan").toBeGreaterThan(20);
    expect(errors.length, "the run produced error answers to scan").toBeGreaterThan(5);
    for (const s of secrets) {
      expect(typeof s === "string" && s.length >= 6, `a collected secret is empty: ${String(s)}`).toBe(true);
      // A 6-digit code counts only as a number of its own, not inside a longer one (a timestamp, a byte count).
      const found = /^\d+$/.test(s) ? new RegExp(`(?<!\\d)${s}(?!\\d)`).test(corpus) : corpus.includes(s);
      expect(found, `a secret (${s.slice(0, 6)}…) appears in logs, errors or metrics`).toBe(false);
    }
    for (const p of personal) expect(corpus.toLowerCase().includes(p.toLowerCase()), `${p} appears in logs, errors or metrics`).toBe(false);
  }, 120_000);
});
