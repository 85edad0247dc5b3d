import { describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { fromIp, growthCheckout, trustLoopbackProxy } from "../../testing/billing";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { appErrorOf } from "../../testing/rejection";
import { settleCheckout } from "./settle";

process.env.SANDBOX_CHAIN_FINALITY_SEC = "2";
resetEnvCache();
trustLoopbackProxy();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pay(url: string, key: string, to: string, memo: string, quantity = "499.0000 EOS", from = "payer.bi") {
  const res = await client(url, key).post("/v1/sandbox/chain/transfer", { from, to, quantity, memo });
  expect(res.status, res.text).toBe(200);
  return res.body.transactionId as string;
}

describe("Growth paid by on-chain transfer", () => {
  it("answers 425 while the transfer is reversible, then 201 with the key once to the proof holder; the same transaction again is 409", async () => {
    const { url, db } = await testServer();
    const tenant = await createTestOrg();
    const co = await growthCheckout(url);
    const txId = await pay(url, tenant.apiKey, co.chainPayment.treasury, co.chainPayment.memo);

    const body = { sessionId: co.sessionId, transactionId: txId, account: "payer.bi", emailProofToken: co.emailProofToken };
    const early = await fromIp(url).post("/v1/billing/chain/confirm", body);
    expect(early.status, early.text).toBe(425);
    expect(early.body.error.code).toBe("TRANSFER_REVERSIBLE");
    expect(Number(early.headers.get("retry-after"))).toBeGreaterThan(0);

    await sleep(2100);
    const ok = await fromIp(url).post("/v1/billing/chain/confirm", body);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({
      status: "provisioned",
      plan: "growth",
      apiKey: expect.stringMatching(/^bi_test_/),
      consolePassword: expect.any(String),
      transactionId: txId,
      revealAvailable: false,
    });
    expect((await client(url, ok.body.apiKey).get("/v1/tenant")).status).toBe(200);

    const twice = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: co.sessionId, transactionId: txId });
    expect(twice.status).toBe(409);
    expect(twice.body.error.details.reason).toBe("already_provisioned");

    const other = await growthCheckout(url);
    const reused = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: other.sessionId, transactionId: txId });
    expect(reused.status).toBe(409);
    expect(reused.body.error.details.reason).toBe("transaction_used");

    const session = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    expect(session).toMatchObject({ status: "provisioned", transactionId: txId, revealPayloadEnc: null });
    const poll = await fromIp(url).get(`/v1/billing/checkout/${co.sessionId}`);
    expect(poll.text).not.toContain(ok.body.apiKey);
    const reveal = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId, emailProofToken: co.emailProofToken });
    expect(reveal.status).toBe(409);
    expect(reveal.body.error.details.reason).toBe("already_revealed");
  });

  it("with the contract's fields only (no email proof) provisions and answers the key once; the memo on chain is not the session id", async () => {
    const { url, db } = await testServer();
    const tenant = await createTestOrg();
    const co = await growthCheckout(url);
    // The session id is a 192-bit secret that never goes on chain: the memo is another value.
    expect(co.sessionId).toMatch(/^cs_[A-Za-z0-9_-]{32}$/);
    expect(co.chainPayment.memo).not.toContain(co.sessionId);
    const txId = await pay(url, tenant.apiKey, co.chainPayment.treasury, co.chainPayment.memo);
    await sleep(2100);

    const ok = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: co.sessionId, transactionId: txId });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({
      status: "provisioned",
      plan: "growth",
      upgraded: false,
      transactionId: txId,
      revealAvailable: false,
      apiKey: expect.stringMatching(/^bi_test_/),
      consolePassword: expect.any(String),
    });
    const me = await client(url, ok.body.apiKey).get("/v1/tenant");
    expect(me.status).toBe(200);
    expect(me.body.organizationId).toBe(ok.body.organizationId);

    // Once: nothing is left sealed, and neither a second confirm nor a reveal shows it again.
    const session = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    expect(session).toMatchObject({ status: "provisioned", transactionId: txId, revealPayloadEnc: null });
    const again = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: co.sessionId, transactionId: txId });
    expect([again.status, again.body.error.details.reason]).toEqual([409, "already_provisioned"]);
    expect(again.text).not.toContain(ok.body.apiKey);
    const reveal = await fromIp(url).post("/v1/billing/checkout/reveal", { sessionId: co.sessionId });
    expect([reveal.status, reveal.body.error.details.reason]).toEqual([409, "already_revealed"]);
    const entries = await db.auditEntry.findMany({ where: { orgId: ok.body.organizationId }, orderBy: { seq: "asc" } });
    expect(entries.map((e) => e.action)).toEqual(["organization.created", "billing.checkout_settled", "billing.keys_revealed"]);
    expect(entries[2]!.data).toMatchObject({ via: "chain_confirm", withEmailProof: false });
  });

  it("refuses a wrong email proof with 403 and settles nothing", async () => {
    const { url, db } = await testServer();
    const tenant = await createTestOrg();
    const co = await growthCheckout(url);
    const other = await growthCheckout(url);
    const txId = await pay(url, tenant.apiKey, co.chainPayment.treasury, co.chainPayment.memo);
    await sleep(2100);

    for (const emailProofToken of ["ept_not-the-proof", other.emailProofToken]) {
      const res = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: co.sessionId, transactionId: txId, emailProofToken });
      expect(res.status, res.text).toBe(403);
      expect(res.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "checkout_proof_mismatch" } });
    }
    const untouched = (await db.checkoutSession.findUnique({ where: { id: co.sessionId } }))!;
    expect(untouched).toMatchObject({ status: "awaiting_payment", transactionId: null, orgId: null, revealPayloadEnc: null });
    expect(await db.organization.count({ where: { contactEmail: co.email } })).toBe(0);

    const ok = await fromIp(url).post("/v1/billing/chain/confirm", {
      sessionId: co.sessionId,
      transactionId: txId,
      emailProofToken: co.emailProofToken,
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.apiKey).toMatch(/^bi_test_/);
  });

  it("refuses a transfer with the wrong memo, amount, recipient or sender with 400 PAYMENT_NOT_VERIFIED", async () => {
    const { url } = await testServer();
    const tenant = await createTestOrg();
    const co = await growthCheckout(url);
    const cases: [string, string][] = [
      [await pay(url, tenant.apiKey, co.chainPayment.treasury, "bi-someoneelse"), "wrong_memo"],
      [await pay(url, tenant.apiKey, co.chainPayment.treasury, co.chainPayment.memo, "1.0000 EOS"), "wrong_amount"],
      [await pay(url, tenant.apiKey, co.chainPayment.treasury, co.chainPayment.memo, "499.0000 WAX"), "wrong_amount"],
      [await pay(url, tenant.apiKey, "notreasury", co.chainPayment.memo), "wrong_recipient"],
      ["ab".repeat(32), "transfer_not_found"],
    ];
    for (const [transactionId, reason] of cases) {
      const res = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: co.sessionId, transactionId });
      expect(res.status, reason).toBe(400);
      expect(res.body.error).toMatchObject({ code: "PAYMENT_NOT_VERIFIED", details: { reason } });
    }
    const good = await pay(url, tenant.apiKey, co.chainPayment.treasury, co.chainPayment.memo, "499.0000 EOS", "alice.bi");
    const sender = await fromIp(url).post("/v1/billing/chain/confirm", { sessionId: co.sessionId, transactionId: good, account: "bob.bi" });
    expect(sender.body.error.details.reason).toBe("wrong_sender");
  });

  it("20 parallel confirms of one transaction provision exactly one organization", async () => {
    const { url, db } = await testServer();
    const tenant = await createTestOrg();
    const co = await growthCheckout(url);
    const txId = await pay(url, tenant.apiKey, co.chainPayment.treasury, co.chainPayment.memo);
    await sleep(2100);
    const all = await Promise.all(
      Array.from({ length: 20 }, () => fromIp(url).post("/v1/billing/chain/confirm", { sessionId: co.sessionId, transactionId: txId })),
    );
    expect(all.filter((r) => r.status === 201)).toHaveLength(1);
    expect(all.filter((r) => r.status === 409)).toHaveLength(19);
    expect(await db.organization.count({ where: { contactEmail: co.email } })).toBe(1);
  });

  it("one transaction id pays one checkout: the unique constraint holds even past the checks", async () => {
    const { url, db } = await testServer();
    const a = await growthCheckout(url);
    const b = await growthCheckout(url);
    const txId = "cd".repeat(32);
    // Settled directly, as two racing confirms that both passed verification would.
    await db.$transaction((tx) => settleCheckout(tx, a.sessionId, { via: "chain", transactionId: txId }, { handOut: true }));
    const err = await appErrorOf(
      db.$transaction((tx) => settleCheckout(tx, b.sessionId, { via: "chain", transactionId: txId }, { handOut: true })),
    );
    expect(err.details?.reason).toBe("transaction_used");
    expect((await db.checkoutSession.findUnique({ where: { id: b.sessionId } }))!.status).toBe("awaiting_payment");
  });
});
