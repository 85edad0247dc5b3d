import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { bindingKeyWatchJob } from "../../jobs/binding-key-watch";
import { listenOperatorMetrics } from "../../metrics";
import { simulatedUpdateAuth } from "../../providers/chain/simulated-updateauth";
import { walletKey, walletSign } from "../../testing/factories";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { checkStatusWithDigitalBazaar } from "../../testing/independent-status-checker";
import { boundAccount } from "../../testing/kyc-flow";
import { stillSatisfied, watchBindingKeys } from "./key-watch";

afterEach(() => {
  delete process.env.CHAIN_WATCH_INTERVAL_MS;
  resetEnvCache();
});

// The job runs one pass every CHAIN_WATCH_INTERVAL_MS (jobs/index.ts); the test runs the passes
// itself, so "within one interval" means "at the next pass" whatever the machine's load.
const watchPass = (db: Parameters<typeof bindingKeyWatchJob.run>[0]) => bindingKeyWatchJob.run(db);

describe("the binding key watch", () => {
  it("runs every CHAIN_WATCH_INTERVAL_MS", () => {
    process.env.CHAIN_WATCH_INTERVAL_MS = "700";
    resetEnvCache();
    expect(bindingKeyWatchJob.everyMs).toBe(700);
  });

  it("suspends a binding at the first pass after an owner key change, opens a case, and a new signature by the current key reinstates it", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { accountDid, accountName, personDid, wallet, credential } = await boundAccount(url, api);
    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    const status = () => checkStatusWithDigitalBazaar(credential, issuer, async (u) => (await call(url, "GET", new URL(u).pathname)).body);
    const binding = async () => (await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).body.bindings[0];

    await watchPass(db);
    expect((await binding()).status).toBe("active");

    // The account is sold: its owner permission now holds the buyer's key.
    const buyer = walletKey();
    await simulatedUpdateAuth(db, accountName, { ownerKeys: [buyer.publicKey] });
    await watchPass(db);
    expect(await binding()).toMatchObject({ status: "suspended", suspendedFor: ["key_changed"] });
    expect(await status()).toEqual({ verified: true, revocation: false, suspension: true });
    const event = await db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "identity.binding_suspended" } });
    expect(event.payload).toMatchObject({ accountDid, personDid, reason: "key_changed" });
    const amlCase = await db.amlCase.findFirstOrThrow({ where: { orgId: org.orgId, subjectDid: personDid, status: "open" } });
    expect(amlCase).toMatchObject({ priority: "medium", openedBy: "system:chain-watch" });

    // The old key cannot reinstate it; the key the account holds now can.
    const challenge = await api.post("/v1/bind/challenge", { accountDid, personDid });
    expect(challenge.status, challenge.text).toBe(200);
    expect(challenge.body.payloadToSign).toContain("reinstate account binding");
    const old = await api.post("/v1/bind/confirm", {
      accountDid,
      personDid,
      nonce: challenge.body.nonce,
      signature: walletSign(wallet.privateKey, challenge.body.payloadToSign),
    });
    expect(old.status).toBe(400);
    const again = await api.post("/v1/bind/confirm", {
      accountDid,
      personDid,
      nonce: challenge.body.nonce,
      signature: walletSign(buyer.privateKey, challenge.body.payloadToSign),
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ reinstated: true, lifecycle: "bound", bindingVcHash: (await binding()).bindingVcHash });
    expect(again.body.credential).toEqual(credential);
    expect(await binding()).toMatchObject({ status: "active", suspendedFor: [] });
    expect(await status()).toEqual({ verified: true, revocation: false, suspension: false });

    // The watch now follows the new key: a further pass changes nothing.
    await watchPass(db);
    expect((await binding()).status).toBe("active");
    const timeline = await api.get(`/v1/aml/cases/${amlCase.id}/timeline`);
    expect(timeline.body.events.filter((e: any) => e.kind === "credentials_changed").map((e: any) => e.data.change)).toEqual([
      "suspended",
      "reinstated",
    ]);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "identity.binding_reinstated" } })).toBe(1);
  }, 60_000);

  it("goes round every binding, the one checked longest ago first: one that sorts after the first batch is read and suspended", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    for (let i = 0; i < 3; i++) await boundAccount(url, api);
    // The binding that sorts last by id is never in a first batch by id, however small the batch.
    const rows = await db.accountBinding.findMany({ where: { orgId: org.orgId }, orderBy: { id: "asc" }, include: { account: true } });
    const last = rows.at(-1)!;
    await simulatedUpdateAuth(db, last.account.name, { ownerKeys: [walletKey().publicKey] });
    const watchedWhere = { status: { not: "revoked" as const }, signingKey: { not: null }, NOT: { suspendedFor: { has: "key_changed" } } };
    const watched = await db.accountBinding.count({ where: watchedWhere });
    expect(watched).toBeGreaterThanOrEqual(3);
    const [clock] = await db.$queryRaw<{ started: Date }[]>`SELECT (now() AT TIME ZONE 'UTC') AS started`;
    const started = clock!.started;

    // A batch of one: every watched binding is read within as many passes as there are, each once.
    const passes = [];
    for (let i = 0; i < watched; i++) passes.push(await watchBindingKeys(db, { limit: 1 }));
    expect(passes.map((p) => p.checked)).toEqual(Array(watched).fill(1));
    expect(passes.reduce((n, p) => n + p.suspended, 0)).toBe(1);
    expect(await db.accountBinding.findUniqueOrThrow({ where: { id: last.id } })).toMatchObject({
      status: "suspended",
      suspendedFor: ["key_changed"],
    });
    expect(await db.accountBinding.count({ where: { ...watchedWhere, keysCheckedAt: { lt: started } } })).toBe(0);

    // The operator sees the coverage: bindings read by the last pass, and how long ago the oldest check was.
    const scrape = async () => {
      const operator = await listenOperatorMetrics(0, "127.0.0.1");
      const text = await (await fetch(`${operator.url}/metrics`)).text();
      await operator.close();
      return {
        lastPass: Number(/^bi_binding_key_watch_last_pass_checked (\S+)$/m.exec(text)?.[1]),
        oldestAge: Number(/^bi_binding_key_watch_oldest_check_age_seconds (\S+)$/m.exec(text)?.[1]),
      };
    };
    const stale = rows[0]!;
    await db.$executeRaw`UPDATE account_bindings SET "keysCheckedAt" = (now() AT TIME ZONE 'UTC') - interval '2 days' WHERE id = ${stale.id}::uuid`;
    const before = await scrape();
    expect(before.lastPass).toBe(1);
    expect(before.oldestAge).toBeGreaterThanOrEqual(2 * 86_400);
    expect(before.oldestAge).toBeLessThan(3 * 86_400);
    // The next pass reads that binding first, and the oldest check is then one of this test's.
    await watchBindingKeys(db, { limit: 1 });
    expect((await db.accountBinding.findUniqueOrThrow({ where: { id: stale.id } })).keysCheckedAt.getTime()).toBeGreaterThanOrEqual(
      started.getTime(),
    );
    expect((await scrape()).oldestAge).toBeLessThan(2 * 86_400);
  }, 60_000);

  it("asks every permission the signing keys satisfied to stay satisfied by them, thresholds and delegations included", async () => {
    const [a, b, c] = [walletKey().publicKey, walletKey().publicKey, walletKey().publicKey];
    const auth = (
      threshold: number,
      keys: string[],
      accounts: { permission: { actor: string; permission: string }; weight: number }[] = [],
    ) => ({
      threshold,
      keys: keys.map((key) => ({ key, weight: 1 })),
      accounts,
      waits: [],
    });
    const state = (owner: ReturnType<typeof auth>, active: ReturnType<typeof auth>) => ({
      name: "x",
      ownerKeys: [],
      activeKeys: [],
      ownerCosigner: null,
      permissions: { owner, active },
    });
    const delegate: Record<string, ReturnType<typeof auth>> = { active: auth(1, [c]) };
    const resolve = async (actor: string, permission: string) => (actor === "other" ? (delegate[permission] ?? null) : null);
    const b1 = { signingKey: a, signingKeys: [], signingPermissions: ["owner", "active"] };
    expect(await stillSatisfied(b1, state(auth(1, [a]), auth(1, [a])), resolve)).toBe(true);
    expect(await stillSatisfied(b1, state(auth(1, [b]), auth(1, [a])), resolve)).toBe(false);
    expect(await stillSatisfied(b1, state(auth(1, [a]), auth(1, [b])), resolve)).toBe(false);
    expect(await stillSatisfied({ ...b1, signingPermissions: ["owner"] }, state(auth(1, [a]), auth(1, [b])), resolve)).toBe(true);
    // A threshold raised past the keys that bound is a change too.
    expect(await stillSatisfied(b1, state(auth(1, [a]), auth(2, [a, b])), resolve)).toBe(false);
    const multi = { signingKey: a, signingKeys: [a, b], signingPermissions: ["active"] };
    expect(await stillSatisfied(multi, state(auth(1, [c]), auth(2, [a, b, c])), resolve)).toBe(true);
    const delegated = { signingKey: c, signingKeys: [c], signingPermissions: ["active"] };
    const viaOther = state(auth(1, [a]), auth(1, [], [{ permission: { actor: "other", permission: "active" }, weight: 1 }]));
    expect(await stillSatisfied(delegated, viaOther, resolve)).toBe(true);
    delegate.active = auth(1, [b]);
    expect(await stillSatisfied(delegated, viaOther, resolve)).toBe(false);
    expect(await stillSatisfied(b1, null, resolve)).toBe(false);
    expect(await stillSatisfied({ signingKey: null, signingKeys: [], signingPermissions: [] }, null, resolve)).toBe(true);
  });
});
