import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { issuerSigningKey, verificationMethodId } from "../../crypto/issuer-keys";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { insertApiKey } from "../org/api-keys";
import { appendAudit } from "./chain";
import { runExportJobs, verifyExportArtifact } from "./exports";
import { rewriteEntry } from "./tampering";

const actor = "system:export-test";

/** Entries with strictly increasing createdAt, so range bounds can fall exactly on them. */
async function appendSpaced(org: TestOrg, n: number) {
  const out = [];
  for (let i = 0; i < n; i++) {
    await sleep(3);
    out.push(
      await org.db.$transaction((tx) =>
        appendAudit(tx, { orgId: org.orgId, actor }, { action: "test.export", subject: String(i), data: { i } }),
      ),
    );
  }
  return out;
}

async function requestExport(org: TestOrg, from: Date, to: Date) {
  const { url } = await testServer();
  const res = await client(url, org.apiKey).post("/v1/compliance/export", { from: from.toISOString(), to: to.toISOString() });
  expect(res.status).toBe(200);
  return res.body.jobId as string;
}

/** Runs this organization's queue until the job has left it (other test files share the database, and their jobs stay untouched). */
async function runUntilDone(org: TestOrg, jobId: string) {
  for (let i = 0; i < 20; i++) {
    await runExportJobs(org.db, { limit: 10, orgId: org.orgId });
    const job = await org.db.exportJob.findUniqueOrThrow({ where: { id: jobId } });
    if (job.status === "completed" || job.status === "failed") return job;
  }
  throw new Error("export job did not finish");
}

const clone = <T>(v: T): T => structuredClone(v);

describe("compliance exports", () => {
  it("queues a job over HTTP and audits the request in the same transaction", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const from = new Date("2025-01-01T00:00:00Z");
    const res = await client(url, org.apiKey).post("/v1/compliance/export", {
      from: "2025-01-01T02:00:00+02:00",
      to: "2025-02-01T00:00:00Z",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jobId: expect.any(String), status: "queued" });
    const job = await org.db.exportJob.findUniqueOrThrow({ where: { id: res.body.jobId } });
    expect(job).toMatchObject({ orgId: org.orgId, status: "queued", from, to: new Date("2025-02-01T00:00:00Z") });
    expect(job.requestedBy).toMatch(/^api_key:/);
    const entry = await org.db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "compliance.export_requested" } });
    expect(entry).toMatchObject({
      subjectType: "export_job",
      subject: job.id,
      actor: job.requestedBy,
      data: { from: from.toISOString(), to: "2025-02-01T00:00:00.000Z" },
    });
  });

  it("rejects a reversed, empty, too long or zone-less range with 400 and writes nothing", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const bodies = [
      { from: "2025-02-01T00:00:00Z", to: "2025-01-01T00:00:00Z" },
      { from: "2025-01-01T00:00:00Z", to: "2025-01-01T00:00:00Z" },
      { from: "2024-01-01T00:00:00Z", to: "2025-01-02T00:00:00Z" },
      { from: "2025-01-01T00:00:00", to: "2025-01-02T00:00:00" },
      { from: "yesterday", to: "today" },
      {},
    ];
    for (const body of bodies) {
      const res = await api.post("/v1/compliance/export", body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect(await org.db.exportJob.count({ where: { orgId: org.orgId } })).toBe(0);
  });

  it("completes with exactly the entries of [from, to) and an artifact that verifies offline", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const entries = await appendSpaced(org, 6);
    const [from, to] = [entries[1]!.createdAt, entries[4]!.createdAt];
    const jobId = await requestExport(org, from, to);
    expect((await client(url, org.apiKey).get(`/v1/compliance/export/${jobId}`)).body).toMatchObject({ jobId, status: "queued" });

    const done = await runUntilDone(org, jobId);
    expect(done.status).toBe("completed");
    const res = await client(url, org.apiKey).get(`/v1/compliance/export/${jobId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      jobId,
      status: "completed",
      from: from.toISOString(),
      to: to.toISOString(),
      completedAt: expect.any(String),
    });
    const artifact = res.body.artifact;
    expect(artifact.format).toBe("bi-audit-export/1");
    expect(artifact.organizationId).toBe(org.orgId);
    expect(artifact.entries.map((e: { id: string }) => e.id)).toEqual(entries.slice(1, 4).map((e) => e.id));
    expect(artifact.entries[0]).toEqual({
      id: entries[1]!.id,
      seq: entries[1]!.seq,
      actor,
      action: "test.export",
      subjectType: null,
      subject: "1",
      data: { i: 1 },
      createdAt: entries[1]!.createdAt.toISOString(),
      prevHash: entries[1]!.prevHash,
      hash: entries[1]!.hash,
    });
    expect(artifact.checkpoint).toMatchObject({
      organizationId: org.orgId,
      count: 3,
      firstSeq: entries[1]!.seq,
      lastSeq: entries[3]!.seq,
      headHash: entries[3]!.hash,
    });
    // A third party resolves the key from the issuer's DID document, by the proof's verification method.
    const didDoc = (await client(url).get("/.well-known/did.json")).body;
    expect(didDoc.assertionMethod).toContain(artifact.proof.verificationMethod);
    const method = didDoc.verificationMethod.find((m: { id: string }) => m.id === artifact.proof.verificationMethod);
    const key = { publicKeyMultibase: method.publicKeyMultibase as string };
    expect(artifact.proof.verificationMethod).toBe(verificationMethodId(issuerSigningKey()));
    expect(verifyExportArtifact(artifact, key.publicKeyMultibase)).toEqual({ valid: true, entries: 3 });

    const completedAudit = await org.db.auditEntry.findFirstOrThrow({
      where: { orgId: org.orgId, action: "compliance.export_completed", subject: jobId },
    });
    expect(completedAudit.data).toMatchObject({ count: 3, headHash: entries[3]!.hash });

    const tampered = [
      (a: typeof artifact) => void (a.entries[1].data = { i: 42 }),
      (a: typeof artifact) => void (a.entries[2].action = "test.other"),
      (a: typeof artifact) => void (a.entries[0].id = entries[5]!.id),
      (a: typeof artifact) => void a.entries.splice(1, 1),
      (a: typeof artifact) => void (a.checkpoint.count = 2),
      (a: typeof artifact) => void (a.checkpoint.to = new Date(to.getTime() + 1).toISOString()),
      (a: typeof artifact) => void (a.checkpoint.note = "added after signing"),
      (a: typeof artifact) => void (a.entries[0].note = "added after signing"),
      (a: typeof artifact) => void (a.proof.signatureMultibase = `${a.proof.signatureMultibase.slice(0, -2)}11`),
    ];
    for (const change of tampered) {
      const copy = clone(artifact);
      change(copy);
      expect(verifyExportArtifact(copy, key.publicKeyMultibase).valid).toBe(false);
    }
    const bad = clone(artifact);
    bad.entries[1].data = { i: 42 };
    expect(verifyExportArtifact(bad, key.publicKeyMultibase)).toMatchObject({ valid: false, entryId: entries[2]!.id });
    const otherKey = "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    expect(verifyExportArtifact(artifact, otherKey).valid).toBe(false);
  });

  it("exports an empty range as a signed, verifiable empty artifact", async () => {
    const org = await createTestOrg();
    const jobId = await requestExport(org, new Date("2020-01-01T00:00:00Z"), new Date("2020-02-01T00:00:00Z"));
    const done = await runUntilDone(org, jobId);
    const artifact = done.artifact as { entries: unknown[]; checkpoint: Record<string, unknown> };
    expect(artifact.entries).toEqual([]);
    expect(artifact.checkpoint).toMatchObject({ count: 0, firstSeq: null, lastSeq: null, headHash: null });
    expect(verifyExportArtifact(artifact, issuerSigningKey().publicKeyMultibase).valid).toBe(true);
  });

  it("fails the job instead of signing a range whose chain was tampered with", async () => {
    const org = await createTestOrg();
    const entries = await appendSpaced(org, 3);
    await rewriteEntry(org.db, entries[1]!.id, { data: '{"i": 7}' });
    const jobId = await requestExport(org, entries[0]!.createdAt, new Date(Date.now() + 60_000));
    const done = await runUntilDone(org, jobId);
    expect(done).toMatchObject({ status: "failed", artifact: null });
    expect(done.error).toContain(entries[1]!.id);
    const { url } = await testServer();
    const res = await client(url, org.apiKey).get(`/v1/compliance/export/${jobId}`);
    expect(res.body).toMatchObject({ status: "failed", error: expect.stringContaining("broken") });
    expect(res.body.artifact).toBeUndefined();
  });

  it("never lets two runners process one job", async () => {
    const org = await createTestOrg();
    await appendSpaced(org, 2);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await requestExport(org, new Date(Date.now() - 3_600_000), new Date(Date.now() + 3_600_000)));
    const [a, b] = await Promise.all([
      runExportJobs(org.db, { limit: 50, orgId: org.orgId }),
      runExportJobs(org.db, { limit: 50, orgId: org.orgId }),
    ]);
    expect(a.processed.filter((id) => b.processed.includes(id))).toEqual([]);
    expect([...a.processed, ...b.processed].sort()).toEqual([...ids].sort());
    const jobs = await org.db.exportJob.findMany({ where: { id: { in: ids } } });
    expect(jobs.every((j) => j.status === "completed" && j.attempts === 1)).toBe(true);
    for (const id of ids) {
      expect(await org.db.auditEntry.count({ where: { orgId: org.orgId, action: "compliance.export_completed", subject: id } })).toBe(1);
    }
  });

  it("lists recent jobs without artifacts and hides other organizations' jobs", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const other = await createTestOrg();
    const first = await requestExport(org, new Date("2025-01-01T00:00:00Z"), new Date("2025-01-02T00:00:00Z"));
    const second = await requestExport(org, new Date("2025-01-02T00:00:00Z"), new Date("2025-01-03T00:00:00Z"));
    const foreign = await requestExport(other, new Date("2025-01-01T00:00:00Z"), new Date("2025-01-02T00:00:00Z"));
    await runUntilDone(org, first);
    const api = client(url, org.apiKey);
    const list = await api.get("/v1/compliance/exports");
    expect(list.status).toBe(200);
    expect(list.body.exports.map((j: { jobId: string }) => j.jobId)).toEqual([second, first]);
    expect(list.body.exports.every((j: object) => !("artifact" in j))).toBe(true);
    expect((await api.get("/v1/compliance/exports?limit=1")).body.exports).toHaveLength(1);
    const hidden = await api.get(`/v1/compliance/export/${foreign}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe("NOT_FOUND");
    expect((await api.get("/v1/compliance/export/not-a-uuid")).status).toBe(404);
    expect((await api.get("/v1/compliance/export/00000000-0000-4000-8000-000000000000")).status).toBe(404);
  });

  it("refuses every compliance route to a key without compliance_export, before writing anything", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const jobId = await requestExport(org, new Date("2025-01-01T00:00:00Z"), new Date("2025-01-02T00:00:00Z"));
    const { raw } = await org.db.$transaction((tx) =>
      insertApiKey(tx, org.orgId, { name: "no export", scopes: ["read", "admin"], createdBy: actor }),
    );
    const auditBefore = await org.db.auditEntry.count({ where: { orgId: org.orgId } });
    const api = client(url, raw);
    const calls = [
      api.post("/v1/compliance/export", { from: "2025-01-01T00:00:00Z", to: "2025-01-02T00:00:00Z" }),
      api.get("/v1/compliance/exports"),
      api.get(`/v1/compliance/export/${jobId}`),
      api.post("/v1/compliance/audit/verify"),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "missing_scope" } });
    }
    expect(await org.db.exportJob.count({ where: { orgId: org.orgId } })).toBe(1);
    expect(await org.db.auditEntry.count({ where: { orgId: org.orgId } })).toBe(auditBefore);
  });
});
