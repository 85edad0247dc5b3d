import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { flaggedPerson } from "@/server/testing/aml";
import { entryArgs } from "@/server/testing/built-entries";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { runExportJobs } from "./exports";

const run = promisify(execFile);

/** Runs `npm run export:verify` as a regulator would; the JSON line it prints, and its exit code. */
async function verify(...args: string[]) {
  try {
    const { stdout } = await run(process.execPath, [...entryArgs("scripts/export-verify.ts"), ...args]);
    return { code: 0, out: JSON.parse(stdout.trim()) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout.trim() ? JSON.parse(e.stdout.trim()) : e.stderr };
  }
}

describe("npm run export:verify (offline)", () => {
  it("accepts a signed export with the issuer's DID document, and refuses a changed entry, naming it", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    for (const name of ["one", "two", "three"]) expect((await api.post("/v1/admin/api-keys", { name })).status).toBe(201);
    const requested = await api.post("/v1/compliance/export", {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 1000).toISOString(),
    });
    expect(requested.status).toBe(200);
    for (let i = 0; i < 20; i++) {
      await runExportJobs(db, { limit: 10, orgId: org.orgId });
      if ((await db.exportJob.findUniqueOrThrow({ where: { id: requested.body.jobId } })).status === "completed") break;
    }
    const artifact = (await api.get(`/v1/compliance/export/${requested.body.jobId}`)).body.artifact;
    expect(artifact.entries.length).toBeGreaterThanOrEqual(4);
    const didDocument = (await client(url).get("/.well-known/did.json")).body;

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-export-verify-"));
    try {
      const files = { artifact: path.join(dir, "export.json"), did: path.join(dir, "did.json"), bad: path.join(dir, "bad.json") };
      fs.writeFileSync(files.artifact, JSON.stringify(artifact));
      fs.writeFileSync(files.did, JSON.stringify(didDocument));
      const good = await verify(files.artifact, "--did-document", files.did);
      expect(good).toEqual({
        code: 0,
        out: {
          valid: true,
          entries: artifact.entries.length,
          organizationId: org.orgId,
          from: artifact.from,
          to: artifact.to,
          verificationMethod: artifact.proof.verificationMethod,
        },
      });

      const changed = structuredClone(artifact);
      changed.entries[1].action = "api_key.revoked";
      fs.writeFileSync(files.bad, JSON.stringify(changed));
      const bad = await verify(files.bad, "--did-document", files.did);
      expect(bad.code).toBe(1);
      expect(bad.out).toMatchObject({ valid: false, entryId: artifact.entries[1].id });

      // A DID document without the signing key is refused before anything else.
      const stranger = { ...didDocument, verificationMethod: [], assertionMethod: [] };
      fs.writeFileSync(files.did, JSON.stringify(stranger));
      const unknownKey = await verify(files.artifact, "--did-document", files.did);
      expect(unknownKey.code).toBe(1);
      expect(unknownKey.out.reason).toMatch(/does not list/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("npm run export:verify (AML case export)", () => {
  it("accepts a signed AML case export, and refuses one whose timeline or checkpoint was changed", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { caseId } = await flaggedPerson(db, org.orgId);
    expect((await api.post(`/v1/aml/cases/${caseId}/comments`, { text: "Checked the list entry." })).status).toBe(201);
    const exported = await api.post(`/v1/aml/cases/${caseId}/export`, {});
    expect(exported.status, exported.text).toBe(200);
    const bundle = exported.body;
    const didDocument = (await client(url).get("/.well-known/did.json")).body;

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-case-verify-"));
    try {
      const write = (name: string, value: unknown) => {
        fs.writeFileSync(path.join(dir, name), JSON.stringify(value));
        return path.join(dir, name);
      };
      const did = write("did.json", didDocument);
      expect(await verify(write("case.json", bundle), "--did-document", did)).toEqual({
        code: 0,
        out: {
          valid: true,
          format: "bi-aml-case-export/1",
          organizationId: org.orgId,
          caseId,
          events: bundle.timeline.events.length,
          verificationMethod: bundle.proof.verificationMethod,
        },
      });

      const comment = structuredClone(bundle);
      comment.timeline.events.find((e: { kind: string }) => e.kind === "comment").text = "Nothing to see.";
      expect(await verify(write("comment.json", comment), "--did-document", did)).toEqual({
        code: 1,
        out: { valid: false, reason: "the timeline digest does not match the timeline" },
      });
      const recount = structuredClone(bundle);
      recount.checkpoint.events = 1;
      expect(await verify(write("recount.json", recount), "--did-document", did)).toEqual({
        code: 1,
        out: { valid: false, reason: "the checkpoint signature does not verify" },
      });
      const unknown = { ...bundle, format: "bi-something/1" };
      const refused = await verify(write("unknown.json", unknown), "--did-document", did);
      expect(refused.code).toBe(1);
      expect(refused.out.reason).toMatch(
        /neither an audit export \(bi-audit-export\/1\), an AML case export \(bi-aml-case-export\/1\) nor a person export/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
