import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { bulkBindings } from "../../testing/bulk";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { accountReadyToBind, approvedPerson } from "../../testing/kyc-flow";
import { plansOf, rowsRead } from "../../testing/query-plan";
import { keySigner, signedProofTransaction } from "../../testing/wallet-proofs";
import { HOSTED_CHALLENGES_PER_SESSION } from "./bind-sessions";

type Challenge = {
  nonce: string;
  transaction: { chainId: string; action: { account: string; name: string; authorization: any[]; data: string } };
};

async function setup(redirectUrl: string | undefined = "https://app.tenant.example/wallet/bound?from=bind") {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  const api = client(url, org.apiKey);
  const page = client(url);
  const subject = await accountReadyToBind(url, api);
  const created = await api.post("/v1/bind/sessions", { accountDid: subject.accountDid, personDid: subject.personDid, redirectUrl });
  expect(created.status, created.text).toBe(201);
  const token = new URL(created.body.url).hash.slice(1);
  const wallet = keySigner(subject.wallet.privateKey);
  const challenge = async () => {
    const res = await page.post("/v1/bind/hosted/challenge", { token });
    expect(res.status, res.text).toBe(200);
    return res.body as Challenge;
  };
  const confirm = (c: Challenge, signers = [wallet]) =>
    page.post("/v1/bind/hosted/confirm", { token, nonce: c.nonce, signedTransaction: signedProofTransaction(c.transaction, signers) });
  return { url, db, org, api, page, subject, created: created.body, token, wallet, challenge, confirm };
}

describe("hosted bind sessions", () => {
  it("hands out a link whose token is only in the fragment and only hashed in the database, and audits it", async () => {
    const s = await setup();
    const link = new URL(s.created.url);
    expect(link.pathname).toBe("/bind");
    expect(s.token.length).toBeGreaterThanOrEqual(43);
    const row = await s.db.bindSession.findUniqueOrThrow({ where: { id: s.created.sessionId } });
    expect(row.tokenHash).toBe(sha256Hex(s.token));
    expect(JSON.stringify(row)).not.toContain(s.token);
    const audit = await s.db.auditEntry.findFirstOrThrow({ where: { orgId: s.org.orgId, action: "bind.session_created" } });
    expect(audit.subject).toBe(s.subject.accountDid);
    expect(audit.data).toMatchObject({ sessionId: row.id, redirectOrigin: "https://app.tenant.example" });
    const view = await s.api.get(`/v1/bind/sessions/${row.id}`);
    expect(view.status, view.text).toBe(200);
    expect(view.body).toMatchObject({ status: "open", accountDid: s.subject.accountDid, personDid: s.subject.personDid, binding: null });
  });

  it("shows the page what the user agrees to, without an API key", async () => {
    const s = await setup();
    const res = await s.page.post("/v1/bind/hosted/view", { token: s.token });
    expect(res.status, res.text).toBe(200);
    const org = await s.db.organization.findUniqueOrThrow({ where: { id: s.org.orgId } });
    expect(res.body).toMatchObject({
      status: "open",
      organization: { name: org.name },
      account: { did: s.subject.accountDid, name: s.subject.accountDid.split(":").at(-1), chain: "sandbox" },
      person: { did: s.subject.personDid, kycLevel: "basic-kyc" },
      chain: { url: `${process.env.BI_PUBLIC_URL}/v1/sandbox/chain` },
      sandboxWallet: true,
      redirectTo: null,
    });
    expect(res.body.chain.id).toMatch(/^[0-9a-f]{64}$/);
    expect((await s.page.post("/v1/bind/hosted/view", { token: `${s.token}x` })).status).toBe(404);
  });

  it("binds with the wallet's signed transaction, sends identity.bound, and returns to the redirect with the result", async () => {
    const s = await setup();
    const res = await s.confirm(await s.challenge());
    expect(res.status, res.text).toBe(200);
    const binding = await s.db.accountBinding.findFirstOrThrow({ where: { orgId: s.org.orgId } });
    expect(res.body).toMatchObject({ bound: true, accountDid: s.subject.accountDid, bindingVcHash: binding.bindingVcHash });
    const back = new URL(res.body.redirectTo);
    expect(back.origin + back.pathname).toBe("https://app.tenant.example/wallet/bound");
    expect(Object.fromEntries(back.searchParams)).toEqual({
      from: "bind",
      bindSession: s.created.sessionId,
      status: "bound",
      bindingId: binding.id,
    });
    const event = await s.db.outboxEvent.findFirstOrThrow({ where: { orgId: s.org.orgId, event: "identity.bound" } });
    expect(event.payload).toMatchObject({ accountDid: s.subject.accountDid, personDid: s.subject.personDid });
    const audit = await s.db.auditEntry.findFirstOrThrow({ where: { orgId: s.org.orgId, action: "identity.bound" } });
    expect(audit.actor).toBe(`system:bind_page:${s.created.sessionId}`);
    const read = await s.api.get(`/v1/bind/sessions/${s.created.sessionId}`);
    expect(read.body).toMatchObject({ status: "bound", binding: { bindingId: binding.id, status: "active" } });
    expect(read.body.binding.credential).toEqual(binding.credential);
    const view = await s.page.post("/v1/bind/hosted/view", { token: s.token });
    expect(view.body).toMatchObject({ status: "bound", redirectTo: res.body.redirectTo });
    const again = await s.page.post("/v1/bind/hosted/challenge", { token: s.token });
    expect([again.status, again.body.error?.details?.reason]).toEqual([409, "already_bound"]);
  });

  it("binds once when the page confirms twice at the same time, and both answers carry the one result", async () => {
    const s = await setup();
    const c = await s.challenge();
    const [a, b] = await Promise.all([s.confirm(c), s.confirm(c)]);
    expect([a.status, b.status], `${a.text} ${b.text}`).toEqual([200, 200]);
    expect(a.body).toEqual(b.body);
    expect(await s.db.accountBinding.count({ where: { orgId: s.org.orgId } })).toBe(1);
    expect(await s.db.outboxEvent.count({ where: { orgId: s.org.orgId, event: "identity.bound" } })).toBe(1);
  });

  it("refuses a challenge the link did not hand out and a bad proof, writing nothing; the link stays open", async () => {
    const s = await setup();
    const direct = (await s.api.post("/v1/bind/challenge", { accountDid: s.subject.accountDid, personDid: s.subject.personDid }))
      .body as Challenge;
    const foreign = await s.confirm(direct);
    expect([foreign.status, foreign.body.error?.code]).toEqual([404, "NOT_FOUND"]);
    const c = await s.challenge();
    const other = keySigner((await import("@wharfkit/antelope")).PrivateKey.generate("K1"));
    const bad = await s.confirm(c, [other]);
    expect([bad.status, bad.body.error?.code, bad.body.error?.details?.reason]).toEqual([400, "INVALID_SIGNATURE", "threshold_not_met"]);
    expect(await s.db.accountBinding.count({ where: { orgId: s.org.orgId } })).toBe(0);
    expect((await s.api.get(`/v1/bind/sessions/${s.created.sessionId}`)).body.status).toBe("open");
    expect((await s.confirm(c)).status).toBe(200);
  });

  it("expires after its hour: the page says so and hands out no challenge", async () => {
    const s = await setup();
    await s.db.bindSession.update({ where: { id: s.created.sessionId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await s.page.post("/v1/bind/hosted/view", { token: s.token })).body.status).toBe("expired");
    const res = await s.page.post("/v1/bind/hosted/challenge", { token: s.token });
    expect([res.status, res.body.error?.details?.reason]).toEqual([409, "session_expired"]);
    expect((await s.api.get(`/v1/bind/sessions/${s.created.sessionId}`)).body.status).toBe("expired");
  });

  it(`hands one link at most ${HOSTED_CHALLENGES_PER_SESSION} challenges`, async () => {
    const s = await setup();
    for (let i = 0; i < HOSTED_CHALLENGES_PER_SESSION; i++) await s.challenge();
    const res = await s.page.post("/v1/bind/hosted/challenge", { token: s.token });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBeTruthy();
  });

  it("takes an https redirect or a localhost one in the sandbox, and names the field when it refuses one", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const subject = await accountReadyToBind(url, api);
    const ask = (redirectUrl?: string) =>
      api.post("/v1/bind/sessions", { accountDid: subject.accountDid, personDid: subject.personDid, redirectUrl });
    for (const ok of ["https://app.example.com/x?y=1", "http://localhost:5173/bound", "http://127.0.0.1:8080/", undefined]) {
      const res = await ask(ok);
      expect(res.status, `${ok}: ${res.text}`).toBe(201);
      expect(res.body.redirectUrl).toBe(ok ?? null);
    }
    for (const bad of [
      "http://app.example.com/bound",
      "javascript:alert(1)",
      "https://user:pw@app.example.com/",
      "https://app.example.com/#frag",
      "/relative",
    ]) {
      const res = await ask(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.details.issues[0].path).toBe("body.redirectUrl");
      expect(res.text).not.toContain(bad);
    }
  });

  it("refuses a link that could only fail: a person not approved, or an account already bound", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const subject = await accountReadyToBind(url, api);
    const other = await approvedPerson(url, api);
    const started = await api.post("/v1/kyc/start", {});
    const notApproved = await api.post("/v1/bind/sessions", { accountDid: subject.accountDid, personDid: started.body.personDid });
    expect([notApproved.status, notApproved.body.error?.details?.reason]).toEqual([409, "person_not_approved"]);
    const s = await api.post("/v1/bind/sessions", { accountDid: subject.accountDid, personDid: subject.personDid });
    const token = new URL(s.body.url).hash.slice(1);
    const c = (await client(url).post("/v1/bind/hosted/challenge", { token })).body as Challenge;
    const signedTransaction = signedProofTransaction(c.transaction, [keySigner(subject.wallet.privateKey)]);
    expect((await client(url).post("/v1/bind/hosted/confirm", { token, nonce: c.nonce, signedTransaction })).status).toBe(200);
    const bound = await api.post("/v1/bind/sessions", { accountDid: subject.accountDid, personDid: other.personDid });
    expect([bound.status, bound.body.error?.details?.reason]).toEqual([409, "already_bound"]);
  });

  it("keeps each organization's sessions to itself", async () => {
    const s = await setup();
    const stranger = await createTestOrg({ plan: "institutional" });
    expect((await client(s.url, stranger.apiKey).get(`/v1/bind/sessions/${s.created.sessionId}`)).status).toBe(404);
  });
});

describe("hosted bind sessions as organizations grow", () => {
  it("reads the session's binding among the organization's, not every binding of every organization", async () => {
    const s = await setup();
    expect((await s.confirm(await s.challenge())).status).toBe(200);
    await s.db.$executeRawUnsafe("ANALYZE account_bindings");
    await bulkBindings(s.db, (await createTestOrg()).orgId, 3000);
    let status = "";
    const plans = await plansOf(async () => {
      status = (await s.api.get(`/v1/bind/sessions/${s.created.sessionId}`)).body.status;
    });
    expect(status).toBe("bound");
    const read = plans.reduce((n, p) => n + rowsRead(p.nodes, "account_bindings"), 0);
    expect(read, plans.map((p) => p.plan).join("\n")).toBeLessThanOrEqual(2);
  });
});
