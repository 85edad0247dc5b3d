import { describe, expect, it } from "vitest";
import { verifyChain } from "@/server/services/audit";
import { walletSign } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { accountReadyToBind, boundAccount } from "@/server/testing/kyc-flow";
import { countRoundTrips } from "@/server/testing/round-trips";

// POST /v1/bind/confirm's database cost (docs/performance.md, "Product paths"): the checks read
// what they need, then the nonce, the account, the binding with its credential, its two status
// positions, the attestation mark, the event and the audit entry are ONE grouped statement.
describe("POST /v1/bind/confirm round trips", () => {
  it("writes the binding in one statement, and everything it wrote before", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await boundAccount(url, api); // warm: key cache, status list cache, chain head
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { personDid, wallet, accountDid } = await accountReadyToBind(url, api);
      const challenge = await api.post("/v1/bind/challenge", { accountDid, personDid });
      const { value, count, statements } = await countRoundTrips(() =>
        api.post("/v1/bind/confirm", {
          accountDid,
          personDid,
          nonce: challenge.body.nonce,
          signature: walletSign(wallet.privateKey, challenge.body.payloadToSign),
        }),
      );
      expect(value.status, value.text).toBe(200);
      counts.push(count);
      // No transaction: the write is one statement.
      expect(statements.filter((s) => /^BEGIN|^COMMIT/.test(s.trim()))).toEqual([]);

      const binding = await db.accountBinding.findFirstOrThrow({
        where: { account: { did: accountDid } },
        include: { statusEntries: true },
      });
      expect(binding).toMatchObject({ status: "active", bindingVcHash: value.body.bindingVcHash });
      expect(binding.credential).toEqual(value.body.credential);
      expect(binding.signingKeys.length).toBeGreaterThan(0);
      expect(binding.statusEntries.map((e) => e.purpose).sort()).toEqual(["revocation", "suspension"]);
      const account = await db.account.findFirstOrThrow({ where: { did: accountDid } });
      expect(account.lifecycle).toBe("bound");
      expect(await db.signatureNonce.count({ where: { nonce: challenge.body.nonce, consumedAt: null } })).toBe(0);
      expect(
        await db.outboxEvent.count({
          where: { orgId: org.orgId, event: "identity.bound", payload: { path: ["accountDid"], equals: accountDid } },
        }),
      ).toBe(1);
      expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "identity.bound", subject: accountDid } })).toBe(1);

      // The same nonce again binds nothing more.
      const again = await api.post("/v1/bind/confirm", {
        accountDid,
        personDid,
        nonce: challenge.body.nonce,
        signature: walletSign(wallet.privateKey, challenge.body.payloadToSign),
      });
      expect(again.status).toBe(409);
    }
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
    // Counted in this process, so the sandbox chain's read of the account's keys is one of them
    // (an HTTP call to a node on a real chain). A confirm now and then reads once more: the status
    // lists' cache is read again after a minute, the chain head after another writer moved it.
    const sorted = [...counts].sort((a, b) => a - b);
    expect(sorted[2], counts.join(",")).toBeLessThanOrEqual(8);
    expect(sorted[4], counts.join(",")).toBeLessThanOrEqual(10);
  });
});
