import { describe, expect, it } from "vitest";
import { walletSign } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { accountReadyToBind } from "@/server/testing/kyc-flow";

type Api = ReturnType<typeof client>;

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

/** The account's owner signs the bind challenge: the person is bound to the account. */
async function bind(api: Api, s: Awaited<ReturnType<typeof accountReadyToBind>>) {
  const challenge = await api.post("/v1/bind/challenge", { accountDid: s.accountDid, personDid: s.personDid });
  const confirmed = await api.post("/v1/bind/confirm", {
    accountDid: s.accountDid,
    personDid: s.personDid,
    nonce: challenge.body.nonce,
    signature: walletSign(s.wallet.privateKey, challenge.body.payloadToSign),
  });
  expect(confirmed.status, confirmed.text).toBe(200);
}

describe("unlock", () => {
  it("is 409 unless the account is bound or unlocked, and safe to retry after a crash between chain and commit", async () => {
    const { url, db, api, org } = await setup();
    const s = await accountReadyToBind(url, api);
    const early = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(early.status).toBe(409);
    expect(early.body.error.details.reason).toBe("not_bound");
    await bind(api, s);
    // The chain already dropped the cosigner, but our commit never happened.
    await db.simChainAccount.update({ where: { name: s.accountDid.split(":").pop()! }, data: { ownerCosigner: null } });
    const retried = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({ lifecycle: "unlocked", transactionId: null });
    // A retry after the answer was lost gets the same answer, and nothing happens twice.
    const events = await db.outboxEvent.count({ where: { orgId: org.orgId, event: "account.unlocked" } });
    const twice = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(twice.status, twice.text).toBe(200);
    expect(twice.body).toEqual(retried.body);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "account.unlocked" } })).toBe(events);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "account.unlocked", subject: s.accountDid } })).toBe(1);
  });

  it("a retry of a completed unlock answers with the original transaction id", async () => {
    const { url, api } = await setup();
    const s = await accountReadyToBind(url, api);
    await bind(api, s);
    const first = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(first.status, first.text).toBe(200);
    expect(first.body.transactionId).toEqual(expect.any(String));
    const again = await api.post("/v1/accounts/unlock", { accountDid: s.accountDid });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });
});
