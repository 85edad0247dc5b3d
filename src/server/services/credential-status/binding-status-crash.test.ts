import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
import { call, client, createTestOrg } from "@/server/testing/harness";
import { checkStatusWithDigitalBazaar } from "@/server/testing/independent-status-checker";
import { type Instance, startInstance, stopInstance, within } from "@/server/testing/instance";
import { boundAccount } from "@/server/testing/kyc-flow";

// An instance killed with SIGKILL while revokes are in flight, then a fresh instance on the same
// database: for every binding, what the binding row says and what the published status list says
// agree, and every acknowledged revoke is revoked in both.

const instances: Instance[] = [];
afterAll(async () => {
  for (const i of instances) await stopInstance(i, "SIGKILL");
});

describe("SIGKILL between revokes and their status publication", () => {
  it("leaves every binding and its published revocation bit agreeing after a restart", async () => {
    const org = await createTestOrg({ plan: "institutional" });
    const first = await startInstance({ BI_RUN_JOBS: "false" });
    instances.push(first);
    const api = client(first.base, org.apiKey);
    const bound = [];
    for (let i = 0; i < 12; i++) bound.push(await boundAccount(first.base, api));
    const bindingIds = await Promise.all(
      bound.map(async (b) => (await api.get(`/v1/accounts/${encodeURIComponent(b.accountDid)}`)).body.bindings[0].bindingId as string),
    );

    const acknowledged: string[] = [];
    const revokes = Promise.all(
      bindingIds.map(async (id) => {
        try {
          const r = await api.post(`/v1/bindings/${id}/revoke`, { reason: "crash run" });
          if (r.status === 200) acknowledged.push(id);
        } catch {
          // the connection died with the process
        }
      }),
    );
    await within(20_000, async () => acknowledged.length >= 1, 1);
    first.child.kill("SIGKILL");
    await revokes;
    await first.exited;
    expect(first.child.signalCode).toBe("SIGKILL");

    const second = await startInstance({ BI_RUN_JOBS: "false" });
    instances.push(second);
    const issuer = (await call(second.base, "GET", "/.well-known/did.json")).body;
    const fetchList = async (u: string) => (await call(second.base, "GET", new URL(u).pathname)).body;
    const db = await getDb();
    for (const [i, id] of bindingIds.entries()) {
      const row = await db.accountBinding.findUniqueOrThrow({ where: { id } });
      const published = await checkStatusWithDigitalBazaar(bound[i]!.credential, issuer, fetchList);
      expect(published.verified, id).toBe(true);
      expect(published.revocation, id).toBe(row.status === "revoked");
      if (acknowledged.includes(id)) expect(row.status, id).toBe("revoked");
      const account = await db.account.findUniqueOrThrow({ where: { id: row.accountId } });
      expect(account.lifecycle, id).toBe(row.status === "revoked" ? "provisional" : "bound");
    }
    const unbound = await db.outboxEvent.count({ where: { orgId: org.orgId, event: "identity.unbound" } });
    expect(unbound).toBe(await db.accountBinding.count({ where: { orgId: org.orgId, status: "revoked" } }));
    const verified = await client(second.base, org.apiKey).post("/v1/compliance/audit/verify");
    expect(verified.body.valid).toBe(true);
  }, 180_000);
});
