import { describe, expect, it } from "vitest";
import { walletKey } from "../src/server/testing/factories";
import { client, createTestOrg, testServer } from "../src/server/testing/harness";

describe("concurrent writers of one organization", () => {
  it("admin changes and account creation interleave without deadlock, on one unbroken audit chain", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const work = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? api.patch("/v1/admin/tenant/policy", { requireSecondApprovalToClearAml: i % 4 === 0 })
        : api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey }),
    );
    const answers = await Promise.all(work);
    expect(answers.map((a) => a.status).filter((s) => s >= 400)).toEqual([]);
    expect(await db.account.count({ where: { orgId: org.orgId } })).toBe(6);
    const verify = await api.post("/v1/compliance/audit/verify");
    expect(verify.body.valid).toBe(true);
  });
});
