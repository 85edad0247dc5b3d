// The export recipe in docs/decisions.md ("Audit and exports", "Export recipe") is all an examiner
// gets. This checker is written from that text alone: Ed25519 from @noble/curves, JCS from
// canonicalize, SHA-256 from Node, and nothing of ours; it must accept a real export and refuse a
// changed one.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ed25519 } from "@noble/curves/ed25519.js";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { appendAudit } from "./chain";
import { runExportJobs } from "./exports";

type Entry = {
  id: string;
  seq: number;
  actor: string;
  action: string;
  subjectType: string | null;
  subject: string | null;
  data: unknown;
  createdAt: string;
  prevHash: string;
  hash: string;
};
type Artifact = {
  format: string;
  organizationId: string;
  from: string;
  to: string;
  entries: Entry[];
  checkpoint: Record<string, unknown>;
  proof: { alg: string; canonicalization: string; verificationMethod: string; signatureMultibase: string };
};
type DidDocument = { id: string; verificationMethod: { id: string; publicKeyMultibase: string }[]; assertionMethod: string[] };

const BASE58_BTC = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58btc(text: string): Uint8Array {
  let n = 0n;
  for (const c of text) {
    const digit = BASE58_BTC.indexOf(c);
    if (digit < 0) throw new Error(`not base58btc: ${c}`);
    n = n * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  for (; n > 0n; n /= 256n) bytes.unshift(Number(n % 256n));
  for (const c of text) {
    if (c !== "1") break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/** Multibase `z` + base58btc. */
const multibase = (text: string) => {
  if (!text.startsWith("z")) throw new Error("not multibase base58btc");
  return base58btc(text.slice(1));
};
const jcs = (value: unknown) => {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("not canonicalisable");
  return text;
};
const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The recipe, step by step; the first step that fails is the answer. */
function checkByRecipe(a: Artifact, did: DidDocument): string | null {
  // 1. Key.
  const method = a.proof.verificationMethod;
  if (!did.assertionMethod.includes(method) || !method.startsWith(`${did.id}#`)) return "key not an assertion method";
  const vm = did.verificationMethod.find((m) => m.id === method);
  if (!vm) return "key not in the document";
  const key = multibase(vm.publicKeyMultibase);
  if (key.length !== 34 || key[0] !== 0xed || key[1] !== 0x01) return "key is not an Ed25519 Multikey";
  // 2. Signature over the JCS form of the checkpoint as received.
  if (a.proof.alg !== "Ed25519" || a.proof.canonicalization !== "JCS") return "unknown proof";
  const signature = multibase(a.proof.signatureMultibase);
  if (signature.length !== 64) return "signature is not 64 bytes";
  if (!ed25519.verify(signature, new TextEncoder().encode(jcs(a.checkpoint)), key.slice(2))) return "signature";
  // 3. Checkpoint.
  const cp = a.checkpoint;
  const first = a.entries[0];
  const last = a.entries[a.entries.length - 1];
  if (cp.type !== "bi-audit-checkpoint/1") return "checkpoint type";
  if (cp.organizationId !== a.organizationId || cp.from !== a.from || cp.to !== a.to) return "checkpoint range";
  if (cp.count !== a.entries.length) return "count";
  if (cp.firstSeq !== (first?.seq ?? null) || cp.lastSeq !== (last?.seq ?? null) || cp.headHash !== (last?.hash ?? null)) return "bounds";
  for (const [i, e] of a.entries.entries()) {
    // 4. Range, half-open.
    const at = Date.parse(e.createdAt);
    if (!(Date.parse(a.from) <= at && at < Date.parse(a.to))) return `entry ${e.seq} outside [from, to)`;
    // 5. Links.
    const prev = a.entries[i - 1];
    if (prev && (e.seq !== prev.seq + 1 || e.prevHash !== prev.hash)) return `entry ${e.seq} link`;
    if (e.seq === 1 && e.prevHash !== "0".repeat(64)) return "genesis link";
    // 6. Entry hash.
    const hashed = {
      v: 1,
      orgId: a.organizationId,
      seq: e.seq,
      actor: e.actor,
      action: e.action,
      subjectType: e.subjectType ?? null,
      subject: e.subject ?? null,
      data: e.data,
      createdAt: e.createdAt,
      prevHash: e.prevHash,
    };
    if (sha256Hex(jcs(hashed)) !== e.hash) return `entry ${e.seq} hash`;
  }
  // 3, last: the digest covers what the hashes leave out (ids); checked after them so a changed entry is named.
  if (cp.entriesDigest !== sha256Hex(jcs(a.entries))) return "entriesDigest";
  return null;
}

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
