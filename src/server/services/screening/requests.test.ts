import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { issuerDid } from "../../crypto/issuer-keys";
import { personDidOf } from "../../platform/account-ref";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { plansOf, rowsRead } from "../../testing/query-plan";
import { insertApiKey } from "../org/api-keys";
import { screenPerson } from "./screen";

const hash = () => randomBytes(32).toString("hex");

async function api(org: TestOrg) {
  const { url } = await testServer();
  return client(url, org.apiKey);
}

async function approvedPerson(org: TestOrg, applicantIdHash: string) {
  const p = await org.db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", applicantIdHash, sanctionsFlag: true } });
  return { ...p, did: personDidOf(issuerDid(), p.id) };
}

describe("POST /v1/aml/screen-applicant", () => {
  it("answers the person's stored screening (from KYC approval) without screening again", async () => {
    const org = await createTestOrg();
    const h = hash();
    const person = await approvedPerson(org, h);
    const stored = await screenPerson(org.db, {
      orgId: org.orgId,
      subjectRef: person.did,
      name: "Ivan Testovich Petrenko",
      birthDate: "1961-04-12",
      country: "UA",
    });
    const res = await (await api(org)).post("/v1/aml/screen-applicant", { applicantIdHash: h.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      applicantIdHash: h,
      personDid: person.did,
      denylisted: false,
      denylist: null,
      flags: { pepFlag: false, sanctionsFlag: true },
      severity: "critical",
      screening: {
        source: "stored",
        resultId: stored.resultId,
        sanctions: true,
        pep: false,
        severity: "critical",
        score: 100,
        listVersions: stored.listVersions,
      },
    });
    expect(res.body.screening.matches[0]).toMatchObject({ externalId: stored.matches[0]!.externalId, entryId: stored.matches[0]!.entryId });
    expect(await org.db.screeningResult.count({ where: { orgId: org.orgId } })).toBe(1);
  });

  it("screens now when a name is given, stores the result and audits it", async () => {
    const org = await createTestOrg();
    const h = hash();
    const res = await (await api(org)).post("/v1/aml/screen-applicant", {
      applicantIdHash: h,
      fullName: "Maria Fictitia Sandoval",
      birthDate: "1970-09-03",
      country: "es",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      personDid: null,
      denylisted: false,
      flags: null,
      severity: "high",
      screening: { source: "fresh", pep: true, sanctions: false },
    });
    const row = await org.db.screeningResult.findUniqueOrThrow({ where: { id: res.body.screening.resultId } });
    expect(row).toMatchObject({ orgId: org.orgId, subjectType: "applicant", subjectRef: h, pepHit: true, severity: "high" });
    const audit = await org.db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "aml.screened" } });
    expect(audit).toMatchObject({
      subjectType: "applicant",
      subject: h,
      data: { resultId: row.id, severity: "high", pep: true, sanctions: false, denylisted: false },
    });
    expect(JSON.stringify(audit.data)).not.toContain("Sandoval");
  });

  it("a fresh screen that hits a known person raises its flags, opens a case and emits aml.sanctions_hit, in one transaction", async () => {
    const org = await createTestOrg();
    const h = hash();
    const p = await org.db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", applicantIdHash: h } });
    const did = personDidOf(issuerDid(), p.id);
    const res = await (await api(org)).post("/v1/aml/screen-applicant", {
      applicantIdHash: h,
      fullName: "Ivan Petrenko",
      birthDate: "1961-04-12",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      personDid: did,
      flags: { sanctionsFlag: true, pepFlag: false },
      severity: "critical",
      screening: { source: "fresh", sanctions: true },
    });
    expect(await org.db.person.findUniqueOrThrow({ where: { id: p.id } })).toMatchObject({ sanctionsFlag: true });
    expect(await org.db.amlCase.findFirstOrThrow({ where: { orgId: org.orgId, personId: p.id } })).toMatchObject({
      status: "open",
      priority: "critical",
    });
    const event = await org.db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } });
    expect(event.payload).toMatchObject({ personDid: did, severity: "critical" });
    expect(await org.db.screeningResult.findUniqueOrThrow({ where: { id: res.body.screening.resultId } })).toMatchObject({
      subjectType: "person",
      subjectRef: did,
    });
  });

  it("answers a denylisted hash as critical even with no person and no name", async () => {
    const org = await createTestOrg();
    const h = hash();
    const http = await api(org);
    expect((await http.post("/v1/aml/denylist", { applicantIdHash: h, reason: "chargeback fraud ring" })).status).toBe(201);
    const res = await http.post("/v1/aml/screen-applicant", { applicantIdHash: h });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      denylisted: true,
      denylist: { reason: "chargeback fraud ring" },
      screening: null,
      severity: "critical",
      personDid: null,
    });
  });

  it("is 404 for an unknown hash without a name, and for another organization's person; 400 for a malformed hash", async () => {
    const [a, b] = [await createTestOrg(), await createTestOrg()];
    const h = hash();
    await approvedPerson(b, h);
    const http = await api(a);
    for (const body of [{ applicantIdHash: hash() }, { applicantIdHash: h }]) {
      const res = await http.post("/v1/aml/screen-applicant", body);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    const bad = await http.post("/v1/aml/screen-applicant", { applicantIdHash: "xyz", extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["body", "body.applicantIdHash"]);
  });
});

describe("POST /v1/aml/screen-account", () => {
  it("answers labels and score for a labelled account with a read-only key, and audits the lookup", async () => {
    const org = await createTestOrg();
    const { url } = await testServer();
    const { raw } = await org.db.$transaction((tx) =>
      insertApiKey(tx, org.orgId, { name: "reader", scopes: ["read"], createdBy: "system:test" }),
    );
    const res = await client(url, raw).post("/v1/aml/screen-account", { chainAccount: "hackedfunds1" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      chainAccount: "hackedfunds1",
      labels: ["hack", "stolen-funds"],
      score: 95,
      severity: "medium",
      resultId: expect.any(String),
    });
    expect(res.body.listVersions.length).toBeGreaterThanOrEqual(1);
    const audit = await org.db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "aml.account_screened" } });
    expect(audit).toMatchObject({ subject: "hackedfunds1", data: { resultId: res.body.resultId, score: 95, severity: "medium" } });
    const clean = await client(url, raw).post("/v1/aml/screen-account", { chainAccount: "plainuser" });
    expect(clean.body).toMatchObject({ labels: [], score: 0, severity: null });
    expect((await client(url, raw).post("/v1/aml/screen-account", { chainAccount: "Not_An_Account" })).status).toBe(400);
  });
});

describe("applicant denylist", () => {
  it("adds (201, then 409), lists, removes (then 404), records who did it, and audits each change", async () => {
    const org = await createTestOrg();
    const http = await api(org);
    const h = hash();
    const added = await http.post("/v1/aml/denylist", { applicantIdHash: h, reason: "  synthetic identity  " });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ applicantIdHash: h, reason: "synthetic identity", addedBy: expect.stringMatching(/^api_key:/) });
    const again = await http.post("/v1/aml/denylist", { applicantIdHash: h, reason: "again" });
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe("already_denylisted");
    expect((await http.get("/v1/aml/denylist")).body.entries.map((e: { applicantIdHash: string }) => e.applicantIdHash)).toEqual([h]);
    expect((await http.delete(`/v1/aml/denylist/${h}`)).body).toEqual({ applicantIdHash: h, removed: true });
    expect((await http.delete(`/v1/aml/denylist/${h}`)).status).toBe(404);
    const actions = await org.db.auditEntry.findMany({
      where: { orgId: org.orgId, action: { startsWith: "aml.denylist" } },
      orderBy: { seq: "asc" },
    });
    expect(actions.map((a) => a.action)).toEqual(["aml.denylist_added", "aml.denylist_removed"]);
  });
});

describe("POST /v1/aml/screen-applicant as the organization grows", () => {
  it("reads the people of that applicant id only, with statistics taken before the organization grew", async () => {
    const org = await createTestOrg();
    const h = hash();
    const person = await approvedPerson(org, h);
    await org.db.$executeRawUnsafe("ANALYZE people");
    await org.db.$executeRaw`
      INSERT INTO people (id, "orgId", "kycStatus", "applicantIdHash", "updatedAt")
      SELECT gen_random_uuid(), ${org.orgId}::uuid, 'approved'::"KycStatus", md5(g::text), now() FROM generate_series(1, 3000) AS g`;
    const a = await api(org);
    let body: { personDid?: string } = {};
    const plans = await plansOf(async () => {
      const res = await a.post("/v1/aml/screen-applicant", { applicantIdHash: h });
      expect(res.status, res.text).toBe(200);
      body = res.body;
    });
    expect(body.personDid).toBe(person.did);
    const read = plans.reduce((n, p) => n + rowsRead(p.nodes, "people"), 0);
    expect(read, plans.map((p) => p.plan).join("\n")).toBeLessThanOrEqual(2);
  });
});
