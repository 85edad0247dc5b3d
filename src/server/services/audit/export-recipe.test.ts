// The export recipe in docs/decisions.md ("Audit and exports", "Export recipe") is all an examiner
// gets. The checker (testing/export-recipe-checker.ts) is written from that text alone; it must
// accept a real export and refuse a changed one.
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type Artifact, checkByRecipe, type DidDocument } from "../../testing/export-recipe-checker";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { appendAudit } from "./chain";
import { runExportJobs } from "./exports";

/** The recipe as docs/decisions.md writes it: the "Export recipe" item and its numbered steps. */
function recipeText(): string {
  const decisions = fs.readFileSync(path.resolve(import.meta.dirname, "../../../../docs/decisions.md"), "utf8");
  const start = decisions.indexOf("- Export recipe:");
  expect(start, "docs/decisions.md has the export recipe").toBeGreaterThan(0);
  const rest = decisions.slice(start);
  const end = rest.search(/\n- /);
  return end < 0 ? rest : rest.slice(0, end);
}

async function exportOf(org: TestOrg, from: Date, to: Date): Promise<Artifact> {
  const { url } = await testServer();
  const api = client(url, org.apiKey);
  const requested = await api.post("/v1/compliance/export", { from: from.toISOString(), to: to.toISOString() });
  expect(requested.status).toBe(200);
  for (let i = 0; i < 20; i++) {
    await runExportJobs(org.db, { limit: 10, orgId: org.orgId });
    const job = await api.get(`/v1/compliance/export/${requested.body.jobId}`);
    if (job.body.status === "completed") return job.body.artifact;
  }
  throw new Error("the export did not complete");
}

describe("the audit export recipe in docs/decisions.md", () => {
  it("states each fact a checker needs: v, how entriesDigest is made, the half-open range, the key and signature encodings", () => {
    const recipe = recipeText();
    expect(recipe).toMatch(/`v` is the number 1/);
    expect(recipe).toMatch(/checkpoint has no `v`/);
    expect(recipe).toMatch(/`entriesDigest` is the lowercase hex SHA-256 of the UTF-8 JCS form of the whole `entries` array/);
    expect(recipe).toMatch(/`from` included and `to` excluded/);
    expect(recipe).toMatch(/signatureMultibase` is `z` followed by base58btc of the 64-byte Ed25519 signature/);
    expect(recipe).toMatch(/`0xed 0x01` and the 32-byte Ed25519 public key/);
    expect(recipe).toMatch(/`orgId` the artifact's `organizationId`/);
  });

  it("a checker written from the recipe alone accepts a real export, includes `from` and excludes `to`, and refuses changes", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const appended = [];
    for (const [i, data] of [
      { n: 1 },
      { name: "Zoë Ørsted", nested: { b: [1, 2.5, true, null], a: "é" } },
      {},
      { big: 1e21 },
      { i: 4 },
    ].entries()) {
      await sleep(3);
      appended.push(
        await org.db.$transaction((tx) =>
          appendAudit(
            tx,
            { orgId: org.orgId, actor: "system:recipe-test" },
            { action: "test.recipe", ...(i % 2 ? { subject: `s${i}` } : {}), data },
          ),
        ),
      );
    }
    const did = (await client(url).get("/.well-known/did.json")).body as DidDocument;

    // The range starts exactly at entry 1 and ends exactly at entry 4: 1, 2 and 3 are in it.
    const artifact = await exportOf(org, appended[1]!.createdAt, appended[4]!.createdAt);
    expect(artifact.entries.map((e) => e.id)).toEqual(appended.slice(1, 4).map((e) => e.id));
    expect(checkByRecipe(artifact, did)).toBeNull();

    // A whole-log export verifies too, genesis link included.
    const whole = await exportOf(org, new Date(Date.now() - 3_600_000), new Date(Date.now() + 1000));
    expect(whole.entries[0]!.seq).toBe(1);
    expect(checkByRecipe(whole, did)).toBeNull();

    const changed = (f: (a: Artifact) => void) => {
      const copy = structuredClone(artifact);
      f(copy);
      return checkByRecipe(copy, did);
    };
    expect(changed((a) => ((a.entries[1]!.data as Record<string, unknown>).name = "Zoe Orsted"))).toBe(
      `entry ${artifact.entries[1]!.seq} hash`,
    );
    expect(changed((a) => (a.entries[0]!.id = crypto.randomUUID()))).toBe("entriesDigest");
    expect(changed((a) => (a.checkpoint.count = 2))).toBe("signature");
    expect(changed((a) => a.entries.pop())).toBe("count");
    expect(changed((a) => (a.proof.verificationMethod = `${did.id}#z6Mkother`))).toBe("key not an assertion method");
  });
});
