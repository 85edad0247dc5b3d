import { describe, expect, it } from "vitest";
import { verifyChain } from "@/server/services/audit";
import { bulkAccounts } from "@/server/testing/bulk";
import { walletSign } from "@/server/testing/factories";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { accountReadyToBind, boundAccount } from "@/server/testing/kyc-flow";
import { plansOf, rowsRead } from "@/server/testing/query-plan";
import { countRoundTrips } from "@/server/testing/round-trips";

// POST /v1/bind/confirm's database cost (docs/performance.md, "Product paths"): ONE read of the
// account, the person, the challenge, a binding to reinstate and the risk counts; the chain's
// account keys (a table on the sandbox chain); then the nonce, the account, the binding with its
// credential, its two status positions, the attestation mark, the event, the risk event and the
// audit entry as ONE grouped statement.
/** A fresh account and person, a challenge, and the confirm with its round trips counted; the confirm must answer 200. */
async function countedConfirm(url: string, api: ReturnType<typeof client>) {
  const { personDid, wallet, accountDid } = await accountReadyToBind(url, api);
  const challenge = await api.post("/v1/bind/challenge", { accountDid, personDid });
  const counted = await countRoundTrips(() =>
    api.post("/v1/bind/confirm", {
      accountDid,
      personDid,
      nonce: challenge.body.nonce,
      signature: walletSign(wallet.privateKey, challenge.body.payloadToSign),
    }),
  );
  expect(counted.value.status, counted.value.text).toBe(200);
  return { accountDid, personDid, wallet, challenge, ...counted };
}

describe("POST /v1/bind/confirm round trips", () => {
  it("writes the binding in one statement, and everything it wrote before", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await boundAccount(url, api); // warm: key cache, status list cache, chain head
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { accountDid, personDid, wallet, challenge, value, count, statements } = await countedConfirm(url, api);
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
      const risk = await db.riskEvent.findMany({ where: { orgId: org.orgId, kind: "bind", subjectRef: accountDid } });
      expect(risk.map((r) => r.decision)).toEqual(["allow"]);

      // The same nonce again binds nothing more.
      const again = await api.post("/v1/bind/confirm", {
        accountDid,
        personDid,
        nonce: challenge.body.nonce,
        signature: walletSign(wallet.privateKey, challenge.body.payloadToSign),
      });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: "CONFLICT", details: { reason: "nonce_used" } });
      // Refused by the read, before the assessment: no second risk event.
      expect(await db.riskEvent.count({ where: { orgId: org.orgId, kind: "bind", subjectRef: accountDid } })).toBe(1);
    }
    expect((await verifyChain(db, org.orgId)).valid).toBe(true);
    // Counted in this process, so the sandbox chain's read of the account's keys is one of them
    // (an HTTP call to a node on a real chain): read, keys, write. A confirm now and then reads
    // once more: the status lists' cache is read again after a minute, the chain head after
    // another writer moved it.
    const sorted = [...counts].sort((a, b) => a - b);
    expect(sorted[2], counts.join(",")).toBeLessThanOrEqual(3);
    expect(sorted[4], counts.join(",")).toBeLessThanOrEqual(5);
  });

  it("takes a status position its read found free when the lists are half full, so no statement fails on a taken one", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await boundAccount(url, api); // warm, and the lists of both purposes exist
    // Every even position of the newest list of each purpose is taken: a position drawn blind is
    // taken half the time, one of the two a binding needs three times in four.
    await db.$executeRaw`
      INSERT INTO credential_status_entries ("listId", index, purpose)
      SELECT l.id, i, l.purpose FROM (SELECT DISTINCT ON (purpose) id, purpose FROM status_lists ORDER BY purpose, "createdAt" DESC, id) l,
             generate_series(0, 131070, 2) i
      ON CONFLICT DO NOTHING`;
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { accountDid, count } = await countedConfirm(url, api);
      counts.push(count);
      const entries = await db.credentialStatusEntry.findMany({ where: { binding: { account: { did: accountDid } } } });
      expect(entries.map((e) => e.index % 2)).toEqual([1, 1]);
    }
    // Read, keys, write: a statement that failed on a taken position would be drawn and sent again.
    const sorted = [...counts].sort((a, b) => a - b);
    expect(sorted[3], counts.join(",")).toBeLessThanOrEqual(3);
  });
});

describe("POST /v1/bind/confirm by a bare account name", () => {
  it("binds, reading the one account, however many the organization has and whatever its statistics say", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await db.$executeRawUnsafe("ANALYZE accounts");
    await bulkAccounts(db, org.orgId, 3000);
    const { personDid, wallet, accountDid } = await accountReadyToBind(url, api);
    const name = accountDid.split(":").pop()!;
    const challenge = await api.post("/v1/bind/challenge", { accountDid: name, personDid });
    expect(challenge.status, challenge.text).toBe(200);
    let answer: { status: number; text: string; body: { accountDid?: string } } | undefined;
    const plans = await plansOf(
      async () =>
        (answer = await api.post("/v1/bind/confirm", {
          accountDid: name,
          personDid,
          nonce: challenge.body.nonce,
          signature: walletSign(wallet.privateKey, challenge.body.payloadToSign),
        })),
    );
    expect(answer!.status, answer!.text).toBe(200);
    expect(answer!.body.accountDid).toBe(accountDid);
    // The confirm's read: the one account row.
    const read = plans.reduce((n, p) => n + rowsRead(p.nodes, "accounts"), 0);
    expect(read, plans.map((p) => p.plan).join("\n")).toBeLessThanOrEqual(1);
  });
});
