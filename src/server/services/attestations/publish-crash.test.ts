// SIGKILL of the app between a binding's change and its publication: after a restart the
// attestation table agrees with the bindings. The interleaving is controlled, not timed: a proxy
// in front of the node holds the publication's transaction until the app is killed, then either
// hands it to the chain (applied, never recorded) or drops it.
import http from "node:http";
import { PrivateKey } from "@wharfkit/antelope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttestationPublisher } from "../../providers/chain/attestation";
import { attestationConfigFromEnv, createAttestationPublisher } from "../../providers/chain/attestation";
import { type FakeServer, listenOnLoopback } from "../../testing/fake-http";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { type Instance, startInstance, stopInstance, within } from "../../testing/instance";
import { boundAccount } from "../../testing/kyc-flow";
import { startVertNode, type VertNode } from "../../testing/vert-node";

const attestKey = PrivateKey.generate("K1");
let node: VertNode;
let publisher: AttestationPublisher;
let proxy: FakeServer;
let instance: Instance | undefined;

/** Transactions held by the proxy: their body and a way to answer them. */
const held: { body: string; release: (forward: boolean) => Promise<void> }[] = [];
let holding = true;

beforeAll(async () => {
  node = await startVertNode({ at: new Date().toISOString().replace(/\.\d+Z$/, "Z") });
  node.createAccount("bindissuer", { active: PrivateKey.generate("K1").toPublic(), attest: attestKey.toPublic() });
  await node.deployAttestation({ issuer: "bindissuer", permission: "attest" });
  publisher = createAttestationPublisher(
    attestationConfigFromEnv({
      ATTESTATION_CONTRACT: "attestation",
      ATTESTATION_ISSUER: "bindissuer",
      ATTESTATION_PRIVATE_KEY: attestKey.toString(),
      ATTESTATION_API_URL: node.url,
    })!,
  );
  proxy = await listenOnLoopback(
    http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString();
      const forward = async () => {
        const answer = await fetch(`${node.url}${req.url}`, { method: "POST", body, headers: { "content-type": "application/json" } });
        res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
      };
      if (holding && req.url === "/v1/chain/send_transaction") {
        held.push({ body, release: async (go) => (go ? forward().catch(() => undefined) : void res.destroy()) });
        return;
      }
      await forward();
    }),
  );
});

afterAll(async () => {
  await stopInstance(instance, "SIGKILL");
  await proxy?.close();
  await node?.close();
});

const workerEnv = () => ({
  BI_RUN_JOBS: "true",
  ATTESTATION_CONTRACT: "attestation",
  ATTESTATION_ISSUER: "bindissuer",
  ATTESTATION_PRIVATE_KEY: attestKey.toString(),
  ATTESTATION_API_URL: proxy.url,
  ATTESTATION_PUBLISH_INTERVAL_MS: "200",
  ATTESTATION_LEASE_MS: "1000",
});

describe("attestations under SIGKILL", () => {
  it("a publication cut by SIGKILL, then a revocation while the app is down: after a restart the table says revoked, once", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    await db.attestationSetting.create({ data: { orgId: org.orgId, enabled: true } });
    const api = client(url, org.apiKey);
    const b = await boundAccount(url, api);
    node.bc.createAccounts(b.accountName);
    const account = await db.account.findFirstOrThrow({ where: { did: b.accountDid } });

    // The worker takes the bind and sends its issue; the proxy holds it there.
    instance = await startInstance(workerEnv());
    expect(await within(60_000, async () => held.length > 0, 50)).not.toBeNull();
    await stopInstance(instance, "SIGKILL");
    // The chain applied it; the app never heard back.
    await held.shift()!.release(true);
    expect(await publisher.readRow(b.accountName)).toMatchObject({ status: "active" });
    expect(await db.attestationSync.findUniqueOrThrow({ where: { accountId: account.id } })).toMatchObject({ dirtyAt: expect.any(Date) });

    // While the app is down the binding is revoked (through another instance's API).
    const binding = await db.accountBinding.findFirstOrThrow({ where: { accountId: account.id } });
    expect((await api.post(`/v1/bindings/${binding.id}/revoke`, { reason: "The account was sold" })).status).toBe(200);

    holding = false;
    const sentBefore = node.received.length;
    instance = await startInstance(workerEnv());
    expect(
      await within(
        60_000,
        async () => (await db.attestationSync.findUniqueOrThrow({ where: { accountId: account.id } })).dirtyAt === null,
        100,
      ),
    ).not.toBeNull();
    await stopInstance(instance);
    expect(await publisher.readRow(b.accountName)).toMatchObject({ status: "revoked" });
    // The issue was not sent again: the chain was read first, so only the revoke went.
    const sent = node.received.slice(sentBefore).filter((t) => t.accepted);
    expect(sent.map((t) => t.actions.map((a) => a.name))).toEqual([["revoke"]]);
    const entries = await db.auditEntry.findMany({ where: { orgId: org.orgId, action: "attestation.published" } });
    expect(entries.map((e) => (e.data as { actions: string[] }).actions)).toEqual([["revoke"]]);
    const verified = await api.post("/v1/compliance/audit/verify");
    expect(verified.body).toMatchObject({ valid: true });
  }, 180_000);
});
