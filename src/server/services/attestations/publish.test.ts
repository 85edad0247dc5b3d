// The service keeps the attestation contract in step with bindings: every change is marked in its
// own transaction, the worker publishes the database's state through the same publisher that
// talks to a real node (here the vert node running the committed WASM), and the reconciler
// repairs a row changed behind its back.
import { PrivateKey } from "@wharfkit/antelope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, failure } from "../../../../contracts/vert";
import type { Db } from "../../db/client";
import { type AttestationPublisher, attestationConfigFromEnv, createAttestationPublisher } from "../../providers/chain/attestation";
import { screeningHit } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { boundAccount } from "../../testing/kyc-flow";
import { startVertNode, type VertNode } from "../../testing/vert-node";
import { publishPending, reconcileAttestations } from ".";

const attestKey = PrivateKey.generate("K1");
let node: VertNode;
let publisher: AttestationPublisher;

beforeAll(async () => {
  // The emulator's clock is the service's: the contract compares expiries with it.
  node = await startVertNode({ at: new Date().toISOString().replace(/\.\d+Z$/, "Z") });
  node.createAccount("bindissuer", { active: PrivateKey.generate("K1").toPublic(), attest: attestKey.toPublic() });
  await node.deployAttestation({ issuer: "bindissuer", permission: "attest" });
  const config = attestationConfigFromEnv({
    ATTESTATION_CONTRACT: "attestation",
    ATTESTATION_ISSUER: "bindissuer",
    ATTESTATION_PRIVATE_KEY: attestKey.toString(),
    ATTESTATION_API_URL: node.url,
  })!;
  publisher = createAttestationPublisher(config);
});

afterAll(async () => {
  await node?.close();
});

async function publishingOrg(db: Db, opts: { publishCountry?: boolean } = {}) {
  const org = await createTestOrg({ plan: "institutional" });
  const setting = await db.attestationSetting.create({
    data: { orgId: org.orgId, enabled: true, publishCountry: opts.publishCountry ?? false },
  });
  return { ...org, orgNumber: Number(setting.orgNumber) };
}

/** A bound account of the organization, which also exists on the emulated chain (the contract checks it does). */
async function bound(url: string, apiKey: string) {
  const api = client(url, apiKey);
  const b = await boundAccount(url, api);
  node.bc.createAccounts(b.accountName);
  return { ...b, api };
}

/** The airdrop example contract on the emulated chain, accepting only this organization's level-2 accounts. */
async function airdropFor(orgNumber: number, account = `drop${orgNumber.toString(36).padStart(8, "a")}`.slice(0, 12)) {
  const airdrop = deploy(node.bc, account, "airdrop");
  await airdrop.actions.init!(["attestation", orgNumber, 2]).send(`${account}@active`);
  return (name: string) => failure(airdrop.actions.claim!([name]).send(`${name}@active`));
}

describe("attestations published from the service", () => {
  it("a bind publishes the row; a sanctions flag suspends it, a confirmed match revokes it; each publication is audited and sent", async () => {
    const { url, db } = await testServer();
    const org = await publishingOrg(db);
    const { accountName, accountDid, personDid, api } = await bound(url, org.apiKey);
    const account = await db.account.findFirstOrThrow({ where: { did: accountDid } });
    expect(await db.attestationSync.findUnique({ where: { accountId: account.id } })).toMatchObject({ dirtyAt: expect.any(Date) });
    expect(await publisher.readRow(accountName)).toBeNull();

    expect(await publishPending(db, publisher)).toMatchObject({ published: 1, failed: 0 });
    const binding = await db.accountBinding.findFirstOrThrow({ where: { accountId: account.id } });
    const person = await db.person.findUniqueOrThrow({ where: { id: binding.personId } });
    const revocationIndex = (await db.credentialStatusEntry.findFirstOrThrow({ where: { bindingId: binding.id, purpose: "revocation" } }))
      .index;
    const row = await publisher.readRow(accountName);
    expect(row).toMatchObject({
      account: accountName,
      org: org.orgNumber,
      level: 2,
      countryTier: 1,
      country: "",
      person: person.pairwiseId,
      statusIndex: revocationIndex,
      status: "active",
    });
    expect(row!.expires.getTime()).toBe(Math.floor((binding.createdAt.getTime() + 365 * 86_400_000) / 1000) * 1000);
    // Nothing personal on chain: no DID, no name, no country (the organization did not opt in).
    expect(JSON.stringify(node.received.at(-1)!.actions)).not.toContain(binding.personId);
    const sync = await db.attestationSync.findUniqueOrThrow({ where: { accountId: account.id } });
    expect(sync).toMatchObject({ dirtyAt: null, lastActions: ["issue"], transactionId: node.received.at(-1)!.id });
    const audit = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "attestation.published" } });
    expect(audit).toMatchObject({ subject: accountDid, data: { actions: ["issue"], status: "active", transactionId: sync.transactionId } });
    const sent = await db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "attestation.published" } });
    expect(sent.payload).toEqual({ accountDid, status: "active", actions: ["issue"], transactionId: sync.transactionId });
    // In step: another pass sends nothing.
    const txCount = node.received.length;
    expect(await publishPending(db, publisher)).toEqual({ published: 0, inStep: 0, failed: 0 });
    expect(node.received.length).toBe(txCount);

    const claim = await airdropFor(org.orgNumber);
    const hit = await screeningHit(db, org.orgId, personDid);
    await publishPending(db, publisher);
    expect(await publisher.readRow(accountName)).toMatchObject({ status: "suspended" });
    // The consumer contract reads the row the service published.
    expect(await claim(accountName)).toBe("eosio_assert: verification suspended");
    const confirmed = await api.post(`/v1/aml/cases/${hit!.caseId}/confirm`, { reason: "Same person as the listed entry" });
    expect(confirmed.status, confirmed.text).toBe(200);
    await publishPending(db, publisher);
    expect(await publisher.readRow(accountName)).toMatchObject({ status: "revoked", person: person.pairwiseId });
    expect(await claim(accountName)).toMatch(/^eosio_assert: verification revoked/);
    const actions = (
      await db.auditEntry.findMany({ where: { orgId: org.orgId, action: "attestation.published" }, orderBy: { seq: "asc" } })
    ).map((e) => (e.data as { actions: string[] }).actions);
    expect(actions).toEqual([["issue"], ["suspend"], ["revoke"]]);
  });

  it("an erasure removes the row; an organization that does not publish marks nothing", async () => {
    const { url, db } = await testServer();
    const org = await publishingOrg(db, { publishCountry: true });
    const { accountName, personDid, api } = await bound(url, org.apiKey);
    await publishPending(db, publisher);
    expect(await publisher.readRow(accountName)).toMatchObject({ status: "active", country: "GH" });
    const erased = await api.post(`/v1/people/${encodeURIComponent(personDid)}/erase`, {});
    // Held by the default AML retention: the request revokes now and erases later; with retention 0 it erases at once.
    if (erased.status === 409) {
      expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
      expect((await api.post(`/v1/people/${encodeURIComponent(personDid)}/erase`, {})).status).toBe(200);
    }
    await publishPending(db, publisher);
    expect(await publisher.readRow(accountName)).toBeNull();

    const quiet = await createTestOrg({ plan: "institutional" });
    const other = await bound(url, quiet.apiKey);
    const acc = await db.account.findFirstOrThrow({ where: { did: other.accountDid } });
    expect(await db.attestationSync.findUnique({ where: { accountId: acc.id } })).toBeNull();
  });

  it("the reconciler repairs a row changed behind the service's back, and one that is missing", async () => {
    const { url, db } = await testServer();
    const org = await publishingOrg(db);
    const first = await bound(url, org.apiKey);
    const second = await bound(url, org.apiKey);
    await publishPending(db, publisher);
    // Someone with the issuer's key suspends the first account by hand, and removes the second.
    await publisher.suspend(first.accountName, 2);
    await publisher.remove(second.accountName);
    const outcome = await reconcileAttestations(db, publisher, { chain: "sandbox" });
    expect(outcome.drifted).toBeGreaterThanOrEqual(2);
    expect(await publishPending(db, publisher)).toMatchObject({ failed: 0 });
    expect(await publisher.readRow(first.accountName)).toMatchObject({ status: "active" });
    expect(await publisher.readRow(second.accountName)).toMatchObject({ status: "active" });
    const claim = await airdropFor(org.orgNumber);
    expect(await claim(first.accountName)).toBe("");
    // And a row for an account the service does not know is removed.
    node.bc.createAccounts("strangeracct");
    await publisher.issue({
      account: "strangeracct",
      org: 999_999,
      level: 2,
      countryTier: 0,
      country: "",
      expires: new Date(Date.now() + 86_400_000),
      person: "",
      statusIndex: 0,
    });
    expect((await reconcileAttestations(db, publisher, { chain: "sandbox" })).removedUnknown).toBe(1);
    expect(await publisher.readRow("strangeracct")).toBeNull();
  });

  it("an attestation past its expiry is swept by the reconciliation, and nothing is issued for it again", async () => {
    const { url, db } = await testServer();
    const org = await publishingOrg(db);
    await db.attestationSetting.update({ where: { orgId: org.orgId }, data: { validDays: 1 } });
    const b = await bound(url, org.apiKey);
    await publishPending(db, publisher);
    expect(await publisher.readRow(b.accountName)).toMatchObject({ status: "active" });
    // Two days on, on the chain and for the service.
    node.advance(2 * 86_400);
    const later = new Date(Date.now() + 2 * 86_400_000);
    const claim = await airdropFor(org.orgNumber);
    expect(await claim(b.accountName)).toBe("eosio_assert: verification expired");
    const sent = node.received.length;
    const outcome = await reconcileAttestations(db, publisher, { chain: "sandbox", now: later });
    expect(outcome.expired).toBeGreaterThanOrEqual(1);
    expect(node.received.slice(sent).map((t) => t.actions.map((a) => a.name))).toEqual([["expire"]]);
    expect(await publisher.readRow(b.accountName)).toBeNull();
    // The binding is still active, but its attestation has expired: nothing is issued again.
    expect(await reconcileAttestations(db, publisher, { chain: "sandbox", now: later })).toMatchObject({ drifted: 0 });
    expect(await publishPending(db, publisher, { now: () => later })).toMatchObject({ published: 0 });
  });

  it("a publication the chain refuses stays marked, with the chain's words and a later retry", async () => {
    const { url, db } = await testServer();
    const org = await publishingOrg(db);
    const api = client(url, org.apiKey);
    // Not created on the emulated chain: the contract refuses to attest an account that does not exist.
    const b = await boundAccount(url, api);
    const account = await db.account.findFirstOrThrow({ where: { did: b.accountDid } });
    const outcome = await publishPending(db, publisher, { now: () => new Date() });
    expect(outcome.failed).toBeGreaterThanOrEqual(1);
    const sync = await db.attestationSync.findUniqueOrThrow({ where: { accountId: account.id } });
    expect(sync).toMatchObject({ attempts: 1, dirtyAt: expect.any(Date) });
    expect(sync.lastError).toMatch(/account/i);
    expect(sync.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now());
    // Once the account exists, the retry publishes it.
    node.bc.createAccounts(b.accountName);
    await publishPending(db, publisher, { now: () => new Date(Date.now() + 60 * 60_000) });
    expect(await publisher.readRow(b.accountName)).toMatchObject({ status: "active" });
  });
});
