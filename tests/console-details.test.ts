import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { personShortLabel } from "@/lib/person-label";
import { serviceCtx } from "@/server/testing/aml";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { getAccountDetail } from "../src/server/services/accounts";
import { proposeClear } from "../src/server/services/aml";
import { listAudit } from "../src/server/services/audit";
import { dashboard } from "../src/server/services/dashboard";
import { getApiKeyDetail } from "../src/server/services/org";
import { getPersonDetail } from "../src/server/services/people";
import { approvedPerson, boundAccount } from "../src/server/testing/kyc-flow";

// The console's detail reads (person, account, API key) and the audit in words: data made through
// /v1 as a tenant's backend makes it, then read through the service functions the pages call.

/** An organization whose named key "backend" made a person, an account and a binding. */
async function boundOrg() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  const minted = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "backend" });
  expect(minted.status, minted.text).toBe(201);
  const api = client(url, minted.body.apiKey);
  const { personDid, accountDid, accountName, credential } = await boundAccount(url, api);
  const ctx = await serviceCtx(db, org.orgId, { type: "member", email: "alice@acme.test", role: "owner" });
  return {
    url,
    db,
    org,
    api,
    ctx,
    key: { id: minted.body.id as string, prefix: minted.body.prefix as string },
    personDid,
    accountDid,
    accountName,
    credential,
  };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "OK",
    (e: { code?: string }) => e.code ?? String(e),
  );

describe("person detail", () => {
  it("shows KYC, the binding and account, and only the audit entries about this person", async () => {
    const a = await boundOrg();
    const other = await approvedPerson(a.url, a.api);
    const personId = a.personDid.split(":").pop()!;
    const d = await getPersonDetail(a.ctx, personId);
    expect(d).toMatchObject({
      personDid: a.personDid,
      id: personId,
      kycStatus: "approved",
      kycProvider: "sandbox",
      country: "GH",
      label: `${personShortLabel(a.personDid)} · approved · GH`,
      sanctionsFlag: false,
      pepFlag: false,
    });
    expect(d.reviewedAt).not.toBeNull();
    expect(d.bindings).toEqual([
      expect.objectContaining({ accountDid: a.accountDid, accountName: a.accountName, revokedAt: null, bindingVcHash: expect.any(String) }),
    ]);
    expect(d.accounts).toEqual([expect.objectContaining({ accountDid: a.accountDid, name: a.accountName, lifecycle: "bound" })]);
    // Screening ran at approval against the sandbox lists and found nothing for this invented person.
    expect(d.screenings.length).toBeGreaterThan(0);
    expect(d.screenings[0]!.listVersions.length).toBeGreaterThan(0);
    expect(d.amlCases).toEqual([]);
    expect(d.audit.map((e) => e.action).sort()).toEqual(["kyc.approved", "kyc.started"]);
    expect(d.audit.every((e) => e.subject === a.personDid)).toBe(true);
    expect(d.audit.find((e) => e.action === "kyc.started")!.summary).toBe(
      `API key 'backend' (${a.key.prefix}) started KYC for ${personShortLabel(a.personDid)}`,
    );
    // Also by DID; the other person of the same organization has their own entries.
    expect((await getPersonDetail(a.ctx, a.personDid)).id).toBe(personId);
    expect((await getPersonDetail(a.ctx, other.personDid)).audit.every((e) => e.subject === other.personDid)).toBe(true);
  });

  it("lists the AML case with names of who acted, and its screening match", async () => {
    const a = await boundOrg();
    const pep = await approvedPerson(a.url, a.api, "pep");
    await proposeClear(a.ctx, { subjectDid: pep.personDid, reason: "Namesake: birth date differs." });
    const d = await getPersonDetail(a.ctx, pep.personDid);
    expect(d.pepFlag).toBe(false);
    expect(d.amlCases).toEqual([
      expect.objectContaining({ status: "cleared", priority: "high", proposedBy: "alice@acme.test", closedAt: expect.any(String) }),
    ]);
    expect(d.amlCases[0]!.openedBy).toMatch(/^The KYC provider \(sandbox\)$|^API key 'backend'/);
    const hit = d.screenings.find((s) => s.pep)!;
    expect(hit.matches[0]).toMatchObject({ name: "Maria Fictitia Sandoval", score: expect.any(Number) });
    const cleared = d.audit.find((e) => e.action === "aml.cleared")!;
    expect(cleared.summary).toBe(`alice@acme.test cleared the AML case for ${personShortLabel(pep.personDid)}`);
  });

  it("names the other person with the same passport for compliance, and nothing of it below", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const doc = `P${randomBytes(5).toString("hex").toUpperCase()}`;
    /** A sandbox verification of the test passport `doc`. */
    const verified = async () => {
      const started = await api.post("/v1/kyc/start", {});
      expect(started.status, started.text).toBe(200);
      const done = await api.post("/v1/sandbox/kyc/complete", {
        personDid: started.body.personDid,
        outcome: "approved",
        documentNumber: doc,
      });
      expect(done.status, done.text).toBe(200);
      return started.body.personDid as string;
    };
    const firstDid = await verified();
    const secondDid = await verified();
    const firstId = firstDid.split(":").pop()!;
    const officer = await serviceCtx(db, org.orgId, { type: "member", email: "carol@acme.test", role: "compliance_officer" });
    const d = await getPersonDetail(officer, secondDid);
    expect(d.pairwiseId).toMatch(/^pw_[0-9a-f]{40}$/);
    expect(d.audit.map((e) => e.action)).toContain("kyc.duplicate_person");
    expect(d.duplicate).toEqual({
      match: "document",
      people: [
        {
          personDid: firstDid,
          id: firstId,
          label: `${personShortLabel(firstDid)} · approved · GH`,
          kycStatus: "approved",
          approvedAt: expect.any(String),
          erased: false,
        },
      ],
    });
    // The first was verified before the second, with no one to match, and shares the pairwise id.
    const first = await getPersonDetail(officer, firstId);
    expect(first.duplicate).toBeNull();
    expect(first.pairwiseId).toBe(d.pairwiseId);
    expect(d.duplicate!.people[0]!.approvedAt).toBe(first.reviewedAt);

    // The first person erased: still named (by their id alone), as erased.
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
    expect((await api.post(`/v1/people/${encodeURIComponent(firstDid)}/erase`, {})).status).toBe(200);
    expect((await getPersonDetail(officer, secondDid)).duplicate!.people).toEqual([
      expect.objectContaining({ id: firstId, personDid: firstDid, erased: true }),
    ]);

    // Below compliance officer, a suspected duplicate is not told, and neither is the shared id.
    for (const role of ["viewer", "operator"] as const) {
      const below = await serviceCtx(db, org.orgId, { type: "member", email: `${role}@acme.test`, role });
      const seen = await getPersonDetail(below, secondDid);
      expect(seen).toMatchObject({ duplicate: null, pairwiseId: null, personDid: secondDid, kycStatus: "approved" });
      expect(JSON.stringify(seen)).not.toContain(firstId);
    }
  }, 60_000);

  it("is 404 for another organization's person, a malformed id and an unknown one", async () => {
    const a = await boundOrg();
    const b = await createTestOrg();
    const ctxB = await serviceCtx(a.db, b.orgId, { type: "member", email: "bob@other.test", role: "owner" });
    expect(await codeOf(getPersonDetail(ctxB, a.personDid))).toBe("NOT_FOUND");
    expect(await codeOf(getPersonDetail(ctxB, a.personDid.split(":").pop()!))).toBe("NOT_FOUND");
    expect(await codeOf(getPersonDetail(a.ctx, "not-a-person"))).toBe("NOT_FOUND");
    expect(await codeOf(getPersonDetail(a.ctx, "00000000-0000-4000-8000-000000000000"))).toBe("NOT_FOUND");
  });
});

describe("account detail", () => {
  it("shows masked contacts, the binding with its credential and person, and only this account's audit", async () => {
    const a = await boundOrg();
    const d = await getAccountDetail(a.ctx, a.accountName);
    expect(d).toMatchObject({ accountDid: a.accountDid, name: a.accountName, lifecycle: "bound" });
    expect(d.allBindings).toHaveLength(1);
    const b = d.allBindings[0]!;
    expect(b).toMatchObject({ personDid: a.personDid, revokedAt: null, personLabel: `${personShortLabel(a.personDid)} · approved · GH` });
    expect(b.credential).toEqual(a.credential);
    expect(b.credential.type).toEqual(expect.arrayContaining(["VerifiableCredential", "AccountBindingCredential"]));
    expect(d.audit.map((e) => e.action).sort()).toEqual(["account.created", "identity.bound"]);
    expect(d.audit.every((e) => e.subject === a.accountDid)).toBe(true);
    expect(d.audit.find((e) => e.action === "identity.bound")!.summary).toBe(
      `API key 'backend' (${a.key.prefix}) bound account ${a.accountName} to ${personShortLabel(a.personDid)}`,
    );
    expect((await getAccountDetail(a.ctx, a.accountDid)).name).toBe(a.accountName);
  });

  it("masks contacts exactly as the read API does", async () => {
    const a = await boundOrg();
    const read = await a.api.get(`/v1/accounts/${encodeURIComponent(a.accountDid)}`);
    expect(read.status).toBe(200);
    expect((await getAccountDetail(a.ctx, a.accountDid)).contacts).toEqual(read.body.contacts);
  });

  it("is 404 for another organization's account", async () => {
    const a = await boundOrg();
    const b = await createTestOrg();
    const ctxB = await serviceCtx(a.db, b.orgId, { type: "member", email: "bob@other.test", role: "owner" });
    expect(await codeOf(getAccountDetail(ctxB, a.accountDid))).toBe("NOT_FOUND");
    expect(await codeOf(getAccountDetail(ctxB, a.accountName))).toBe("NOT_FOUND");
  });
});

describe("API key detail", () => {
  it("shows the key without its hash, who created it, and the entries made with it or about it", async () => {
    const a = await boundOrg();
    const d = await getApiKeyDetail(a.ctx, a.key.id);
    expect(d).toMatchObject({ id: a.key.id, name: "backend", prefix: a.key.prefix, environment: "sandbox", revokedAt: null });
    expect(d.createdBy).toMatch(/^api_key:/);
    expect(d.createdByName).toMatch(/^API key 'Initial key' \(bi_test_/);
    expect(JSON.stringify(d)).not.toMatch(/keyHash/);
    const mine = `api_key:${a.key.id}`;
    expect(d.audit.every((e) => e.actor === mine || e.subject === a.key.id)).toBe(true);
    expect(d.audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(["api_key.created", "kyc.started", "account.created", "identity.bound"]),
    );
    // Another key's entries are not here: the key that minted this one is the actor of api_key.created only.
    const created = d.audit.find((e) => e.action === "api_key.created")!;
    expect(created.summary).toBe(`${d.createdByName} created API key 'backend'`);
  });

  it("is 404 for another organization's key and a malformed id", async () => {
    const a = await boundOrg();
    const b = await createTestOrg();
    const ctxB = await serviceCtx(a.db, b.orgId, { type: "member", email: "bob@other.test", role: "owner" });
    expect(await codeOf(getApiKeyDetail(ctxB, a.key.id))).toBe("NOT_FOUND");
    expect(await codeOf(getApiKeyDetail(a.ctx, "nope"))).toBe("NOT_FOUND");
  });
});

describe("the audit log and the dashboard in words", () => {
  it("names key actors by name and prefix, and the dashboard says what happened to whom", async () => {
    const a = await boundOrg();
    const list = await listAudit(a.ctx, { limit: 50 });
    const created = list.entries.find((e) => e.action === "account.created")!;
    expect(created.actor).toBe(`api_key:${a.key.id}`);
    expect(created.actorName).toBe(`API key 'backend' (${a.key.prefix})`);
    expect(created.subjectName).toBe(a.accountName);
    expect(created.summary).toBe(`API key 'backend' (${a.key.prefix}) created account ${a.accountName}`);
    const d = await dashboard(a.ctx);
    expect(d.recentAudit.map((e) => e.summary)).toContain(`API key 'backend' (${a.key.prefix}) created account ${a.accountName}`);
    // Over /v1 the existing fields are as before, with the names added.
    const v1 = await a.api.get("/v1/admin/audit?limit=5");
    expect(v1.status).toBe(200);
    expect(Object.keys(v1.body.entries[0]).sort()).toEqual(
      [
        "id",
        "seq",
        "actor",
        "action",
        "subjectType",
        "subject",
        "data",
        "createdAt",
        "prevHash",
        "hash",
        "actorName",
        "subjectName",
        "summary",
      ].sort(),
    );
  });
});
