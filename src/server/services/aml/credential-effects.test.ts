import { describe, expect, it } from "vitest";
import { screeningHit } from "../../testing/aml";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { checkStatusWithDigitalBazaar } from "../../testing/independent-status-checker";
import { boundAccount } from "../../testing/kyc-flow";

// Compliance drives credential status: a sanctions flag suspends, a clear lifts, a confirmed
// sanctions match revokes. Checked with Digital Bazaar's status list verifier, as a relying party would.

async function statusOf(url: string, credential: unknown) {
  const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
  return checkStatusWithDigitalBazaar(credential, issuer, async (u) => (await call(url, "GET", new URL(u).pathname)).body);
}

describe("credential status follows the AML case", () => {
  it("a sanctions flag suspends, a clear lifts it; each change is audited, sent and on the case timeline", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { credential, personDid, accountDid } = await boundAccount(url, api);

    const hit = await screeningHit(db, org.orgId, personDid);
    expect(await statusOf(url, credential)).toEqual({ verified: true, revocation: false, suspension: true });
    const account = (await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).body;
    expect(account.bindings[0]).toMatchObject({ status: "suspended", suspendedFor: ["sanctions_flag"] });
    expect(account.lifecycle).toBe("bound");

    const cleared = await api.post("/v1/aml/clear", { subjectDid: personDid, reason: "False positive: different birth date" });
    expect(cleared.status, cleared.text).toBe(200);
    expect(await statusOf(url, credential)).toEqual({ verified: true, revocation: false, suspension: false });

    const events = await db.outboxEvent.findMany({
      where: { orgId: org.orgId, event: { startsWith: "identity.binding" } },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((e) => [e.event, (e.payload as any).reason])).toEqual([
      ["identity.binding_suspended", "sanctions_flag"],
      ["identity.binding_reinstated", "sanctions_flag"],
    ]);
    const actions = (await db.auditEntry.findMany({ where: { orgId: org.orgId }, orderBy: { seq: "asc" } })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["identity.binding_suspended", "identity.binding_reinstated"]));
    const timeline = await api.get(`/v1/aml/cases/${hit!.caseId}/timeline`);
    const changes = timeline.body.events.filter((e: any) => e.kind === "credentials_changed").map((e: any) => e.data.change);
    expect(changes).toEqual(["suspended", "reinstated"]);
  });

  it("a confirmed sanctions match revokes: the account is provisional again and Digital Bazaar says revoked", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { credential, personDid, accountDid } = await boundAccount(url, api);
    const hit = await screeningHit(db, org.orgId, personDid);
    const confirmed = await api.post(`/v1/aml/cases/${hit!.caseId}/confirm`, { reason: "Same person as the OFAC entry" });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(await statusOf(url, credential)).toEqual({ verified: true, revocation: true, suspension: true });
    const account = (await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).body;
    expect(account).toMatchObject({ lifecycle: "provisional", bindings: [] });
    const unbound = await db.outboxEvent.findMany({ where: { orgId: org.orgId, event: "identity.unbound" } });
    expect(unbound.map((e) => (e.payload as any).reason)).toEqual([`Confirmed sanctions match (AML case ${hit!.caseId})`]);
    const timeline = await api.get(`/v1/aml/cases/${hit!.caseId}/timeline`);
    expect(timeline.body.events.filter((e: any) => e.kind === "credentials_changed").map((e: any) => e.data.change)).toEqual([
      "suspended",
      "revoked",
    ]);
  });

  it("a PEP match confirmed changes no credential", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { credential, personDid } = await boundAccount(url, api);
    const hit = await screeningHit(db, org.orgId, personDid, { sanctions: false, pep: true, severity: "high", score: 80 });
    expect((await api.post(`/v1/aml/cases/${hit!.caseId}/confirm`, { reason: "Is the minister" })).status).toBe(200);
    expect(await statusOf(url, credential)).toEqual({ verified: true, revocation: false, suspension: false });
  });
});
