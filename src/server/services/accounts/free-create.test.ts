import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
import { recoverPendingCreates } from "@/server/services/accounts";
import { verifyChain } from "@/server/services/audit";
import { approvedPersonWithToken, walletKey } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { type Instance, startInstance, stopInstance, within } from "@/server/testing/instance";
import { countRoundTrips } from "@/server/testing/round-trips";

// Free create reserves a pending account, calls the chain with no lock held, then commits. These
// tests crash a real instance in between (and under a burst), then let recovery settle what was
// left pending: nothing acknowledged is lost, and nothing the chain did not accept is provisional.

const instances: Instance[] = [];
afterAll(async () => {
  for (const i of instances) await stopInstance(i, "SIGKILL");
});

/** Makes every pending account of the organization look abandoned (its request's lease over). */
async function expireLeases(orgId: string) {
  const db = await getDb();
  await db.$executeRaw`UPDATE accounts SET "pendingUntil" = now() - interval '1 second' WHERE "orgId" = ${orgId}::uuid AND lifecycle = 'pending'`;
}

async function stateOf(orgId: string) {
  const db = await getDb();
  const accounts = await db.account.findMany({
    where: { orgId },
    select: { did: true, name: true, lifecycle: true, ownerPublicKey: true },
  });
  const onChain = await db.simChainAccount.findMany({ where: { name: { in: accounts.map((a) => a.name) } } });
  const chainKeys = new Map(onChain.map((c) => [c.name, c.ownerKeys]));
  return { accounts, chainKeys };
}

describe("free create: the chain call and the final commit", () => {
  it("finishes a create whose process died between the chain call and the commit; its Idempotency-Key then replays the 201", async () => {
    const org = await createTestOrg();
    const crashing = await startInstance({ BI_FAULT_POINT: "free-create:after-chain" });
    instances.push(crashing);
    const { person, token } = await approvedPersonWithToken(org.orgId);
    const body = { ownerPublicKey: walletKey().publicKey, kycCreateToken: token };
    const headers = { "idempotency-key": `crash-${Date.now()}` };
    await expect(client(crashing.base, org.apiKey).post("/v1/accounts/free", body, { headers })).rejects.toThrow();
    await crashing.exited;
    expect(crashing.child.signalCode).toBe("SIGKILL");

    const db = await getDb();
    const [pending] = (await stateOf(org.orgId)).accounts.filter((a) => a.lifecycle === "pending");
    expect(pending, "the reservation is there, pending").toBeDefined();
    const { url } = await testServer();
    const api = client(url, org.apiKey);
    // While pending it does not exist for anyone, and the key says the first request is still running.
    expect((await api.get(`/v1/accounts/${encodeURIComponent(pending!.did)}`)).status).toBe(404);
    expect((await api.post("/v1/accounts/free", body, { headers })).body.error.details.reason).toBe("idempotency_in_progress");
    expect(await recoverPendingCreates(db)).toMatchObject({ finished: 0, undone: 0 }); // its lease still runs

    await expireLeases(org.orgId);
    expect(await recoverPendingCreates(db)).toMatchObject({ finished: 1, undone: 0 });
    const account = await db.account.findFirstOrThrow({ where: { orgId: org.orgId } });
    expect(account).toMatchObject({ did: pending!.did, lifecycle: "provisional", pendingUntil: null, pendingState: null });
    const audit = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "account.created" } });
    expect(audit.data).toMatchObject({ personId: person.id, kycGate: false });
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "account.created" } })).toBe(1);
    expect((await db.kycCreateToken.findFirstOrThrow({ where: { personId: person.id } })).usedAt).not.toBeNull();
    const replay = await api.post("/v1/accounts/free", body, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toMatchObject({ accountDid: pending!.did, lifecycle: "provisional" });
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  }, 120_000);

  it("undoes a pending create the chain never accepted: the row goes, its token comes back, its Idempotency-Key runs anew", async () => {
    const org = await createTestOrg();
    const crashing = await startInstance({ BI_FAULT_POINT: "free-create:after-chain" });
    instances.push(crashing);
    const { token } = await approvedPersonWithToken(org.orgId);
    const body = { ownerPublicKey: walletKey().publicKey, kycCreateToken: token };
    const headers = { "idempotency-key": `undo-${Date.now()}` };
    await expect(client(crashing.base, org.apiKey).post("/v1/accounts/free", body, { headers })).rejects.toThrow();
    await crashing.exited;
    const db = await getDb();
    const [pending] = (await stateOf(org.orgId)).accounts;
    // As if the chain had dropped the transaction.
    await db.simChainAccount.delete({ where: { name: pending!.name } });
    await expireLeases(org.orgId);
    expect(await recoverPendingCreates(db)).toMatchObject({ finished: 0, undone: 1 });
    expect(await db.account.count({ where: { orgId: org.orgId } })).toBe(0);
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "account.created" } })).toBe(0);
    const { url } = await testServer();
    const again = await client(url, org.apiKey).post("/v1/accounts/free", body, { headers });
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.accountDid).not.toBe(pending!.did);
  }, 120_000);

  it("loses no acknowledged account when killed with SIGKILL during a burst, and leaves none provisional that the chain does not hold", async () => {
    const org = await createTestOrg({ plan: "institutional" });
    const first = await startInstance();
    instances.push(first);
    const api = client(first.base, org.apiKey);
    const acknowledged: string[] = [];
    let killed = false;
    const writer = async () => {
      while (!killed) {
        try {
          const res = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey });
          if (res.status === 201) acknowledged.push(res.body.accountDid as string);
        } catch {
          return;
        }
      }
    };
    const burst = Promise.all(Array.from({ length: 16 }, writer));
    await within(30_000, async () => acknowledged.length >= 60);
    first.child.kill("SIGKILL");
    killed = true;
    await burst;
    await first.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);

    await new Promise((r) => setTimeout(r, 500)); // the killed sessions' statements end
    await expireLeases(org.orgId);
    const db = await getDb();
    await recoverPendingCreates(db);
    const { accounts, chainKeys } = await stateOf(org.orgId);
    const byDid = new Map(accounts.map((a) => [a.did, a]));
    for (const did of acknowledged) expect(byDid.get(did)?.lifecycle, did).toBe("provisional");
    expect(accounts.filter((a) => a.lifecycle === "pending")).toEqual([]);
    for (const a of accounts) expect(chainKeys.get(a.name), a.name).toContain(a.ownerPublicKey);
    const created = await db.auditEntry.count({ where: { orgId: org.orgId, action: "account.created" } });
    expect(created).toBe(accounts.length);
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
  }, 120_000);

  it("costs at most 8 database round trips, BEGIN and COMMIT included, with an Idempotency-Key", async () => {
    const org = await createTestOrg();
    const { url } = await testServer();
    const api = client(url, org.apiKey);
    const create = (i: number) =>
      api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey }, { headers: { "idempotency-key": `rt-${Date.now()}-${i}` } });
    expect((await create(0)).status).toBe(201); // warm: the key cache, the chain head
    const { count } = await countRoundTrips(async () => {
      for (let i = 1; i <= 5; i++) expect((await create(i)).status).toBe(201);
    });
    expect(count, "the counter saw the statements").toBeGreaterThanOrEqual(5 * 4);
    expect(count / 5).toBeLessThanOrEqual(8);
  });
});
