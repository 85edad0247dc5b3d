import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { client, createTestOrg, testServer } from "@/server/testing/harness";
import { runExportJobs } from "./exports";

const run = promisify(execFile);

/** Runs `npm run export:verify` as a regulator would; the JSON line it prints, and its exit code. */
async function verify(...args: string[]) {
  try {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/export-verify.ts", ...args]);
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
