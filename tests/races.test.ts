import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
import { fromIp, growthCheckout, trustLoopbackProxy } from "@/server/testing/billing";
import { approvedPersonWithToken, uniqueName, walletKey, walletSign } from "@/server/testing/factories";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";

// Every single-use thing, hit by 20 concurrent requests: exactly the allowed number succeed, and
// the data shows it happened that many times.

trustLoopbackProxy();

const N = 20;
const burst = <T>(fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: N }, (_, i) => fn(i)));
const ok = (r: { status: number }) => r.status >= 200 && r.status < 300;

async function org() {
  const { url } = await testServer();
  const o = await createTestOrg({ plan: "institutional" });
  return { url, o, api: client(url, o.apiKey), db: await getDb() };
}

describe("20 concurrent requests on one single-use thing", () => {
  it("one Idempotency-Key: one account is created, and every success is the same answer", async () => {
    const { url, o, db } = await org();
    const body = { ownerPublicKey: walletKey().publicKey };
    const headers = { "idempotency-key": `race-${uniqueName()}` };
    const answers = await burst(() => call(url, "POST", "/v1/accounts/free", { key: o.apiKey, body, headers }));
    expect(
      answers.every((a) => ok(a) || a.status === 409),
      answers.map((a) => a.status).join(","),
    ).toBe(true);
    expect(new Set(answers.filter(ok).map((a) => a.text)).size).toBe(1);
    expect(await db.account.count({ where: { orgId: o.orgId } })).toBe(1);
  });

  it("one KYC create token: one account", async () => {
    const { api, o, db } = await org();
    const { token } = await approvedPersonWithToken(o.orgId);
    const answers = await burst(() => api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, kycCreateToken: token }));
    expect(answers.filter(ok)).toHaveLength(1);
    expect(await db.account.count({ where: { orgId: o.orgId } })).toBe(1);
  });

  it("one email proof token: one account", async () => {
    const { api, o, db } = await org();
    const start = await api.post("/v1/email/otp/start", { email: `race-${uniqueName()}@example.test` });
    const proof = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
    const token = proof.body.emailProofToken as string;
    const answers = await burst(() => api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, emailProofToken: token }));
    expect(answers.filter(ok)).toHaveLength(1);
    expect(await db.account.count({ where: { orgId: o.orgId } })).toBe(1);
  });

  it("one OTP challenge: at most five wrong guesses are counted, and the right code then fails too", async () => {
    const { api, db } = await org();
    const start = await api.post("/v1/email/otp/start", { email: `race-${uniqueName()}@example.test` });
    const wrong = String((Number(start.body.devCode) + 1) % 1_000_000).padStart(6, "0");
    const answers = await burst(() => api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: wrong }));
    expect(answers.filter(ok)).toHaveLength(0);
    const row = await db.otpChallenge.findUniqueOrThrow({ where: { id: start.body.challengeId } });
    expect(row.attempts).toBeLessThanOrEqual(row.maxAttempts);
    const late = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
    expect(ok(late)).toBe(false);
  });

  it("one bind nonce: one binding", async () => {
    const { api, o, db } = await org();
    const { person, token } = await approvedPersonWithToken(o.orgId);
    const wallet = walletKey();
    const personDid = `did:web:localhost%3A3000:people:${person.id}`;
    const created = await api.post("/v1/accounts/free", { ownerPublicKey: wallet.publicKey, kycCreateToken: token, personDid });
    expect(created.status, created.text).toBe(201);
    const accountDid = created.body.accountDid as string;
    const challenge = await api.post("/v1/bind/challenge", { accountDid, personDid });
    expect(challenge.status, challenge.text).toBe(200);
    const signature = walletSign(wallet.privateKey, challenge.body.payloadToSign);
    const answers = await burst(() => api.post("/v1/bind/confirm", { accountDid, personDid, nonce: challenge.body.nonce, signature }));
    expect(answers.filter(ok)).toHaveLength(1);
    expect(await db.accountBinding.count({ where: { orgId: o.orgId } })).toBe(1);
  });

  it("one contact-change nonce: one change started", async () => {
    const { api, o, db } = await org();
    const key = walletKey();
    const start = await api.post("/v1/email/otp/start", { email: `old-${uniqueName()}@example.test` });
    const proof = await api.post("/v1/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
    const created = await api.post("/v1/accounts/free", { ownerPublicKey: key.publicKey, emailProofToken: proof.body.emailProofToken });
    const accountDid = created.body.accountDid as string;
    const challenge = await api.post("/v1/accounts/contact/challenge", { accountDid, channel: "email" });
    const signature = walletSign(key.privateKey, challenge.body.payloadToSign);
    const before = await db.otpChallenge.count({ where: { orgId: o.orgId } });
    const answers = await burst((i) =>
      api.post("/v1/accounts/contact/email/start", {
        accountDid,
        email: `new-${i}-${uniqueName()}@example.test`,
        nonce: challenge.body.nonce,
        signature,
      }),
    );
    expect(answers.filter(ok)).toHaveLength(1);
    expect(await db.otpChallenge.count({ where: { orgId: o.orgId } })).toBe(before + 1);
  });

  it("one checkout reveal: the key is shown once", async () => {
    const { url } = await testServer();
    const co = await growthCheckout(url);
    expect((await fromIp(url).post("/v1/billing/checkout/complete", { sessionId: co.sessionId })).status).toBe(200);
    const answers = await burst(() =>
      fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken: co.emailProofToken }),
    );
    expect(answers.filter(ok)).toHaveLength(1);
    expect(answers.filter((a) => !ok(a)).every((a) => a.status === 409 || a.status === 429)).toBe(true);
  });
});
