import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { ed25519 } from "@noble/curves/ed25519.js";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv, resetEnvCache } from "@/env";
import { runExportJobs, verifyExportArtifact } from "../services/audit";
import { client, createTestOrg, testServer } from "../testing/harness";
import { verifyWithDigitalBazaar } from "../testing/independent-vc-verifier";
import { basencBase64url } from "../testing/keys";
import { boundAccount } from "../testing/kyc-flow";
import { publicKeyMultibase, resetIssuerKeyCache } from "./issuer-keys";

// BI_ISSUER_SIGNING_KEY as an operator makes it (docs/operations.md, "Settings"): the documented
// command writes padded base64url, our own local seed is unpadded; both are the same key, and
// anything else stops the service at start-up instead of failing every signature afterwards.

const saved = process.env.BI_ISSUER_SIGNING_KEY;

function setIssuerKey(value: string | undefined) {
  if (value === undefined) delete process.env.BI_ISSUER_SIGNING_KEY;
  else process.env.BI_ISSUER_SIGNING_KEY = value;
  resetEnvCache();
  resetIssuerKeyCache();
}

afterEach(() => setIssuerKey(saved));

/** The message parseEnv throws for `source` ("" when it accepts it). */
function problemsOf(source: Record<string, string>): string {
  try {
    parseEnv(source);
    return "";
  } catch (err) {
    return (err as Error).message;
  }
}

describe("the issuer signing key", () => {
  it("is documented as `openssl rand 32 | basenc --base64url`, whose form the tests' keys reproduce", () => {
    expect(fs.readFileSync("docs/operations.md", "utf8")).toContain("`openssl rand 32 | basenc --base64url`");
    const seed = randomBytes(32);
    const written = execFileSync("basenc", ["--base64url"], { input: seed }).toString().trim();
    expect(written).toMatch(/=$/);
    expect(basencBase64url(seed)).toBe(written);
  });

  it("gives the same issuer DID document from its padded and unpadded forms, and signs with it", async () => {
    const { url } = await testServer();
    const seed = randomBytes(32);
    const documents: unknown[] = [];
    for (const form of [basencBase64url(seed), Buffer.from(seed).toString("base64url")]) {
      setIssuerKey(form);
      expect(parseEnv(process.env).BI_ISSUER_SIGNING_KEY).toBe(form);
      const res = await client(url).get("/.well-known/did.json");
      expect(res.status, res.text).toBe(200);
      documents.push(res.body);
    }
    expect(documents[0]).toEqual(documents[1]);
    const [method] = (documents[0] as { verificationMethod: { publicKeyMultibase: string }[] }).verificationMethod;
    expect(method!.publicKeyMultibase).toBe(publicKeyMultibase(ed25519.getPublicKey(seed)));
  });

  it("signs credentials and audit exports with a key made by the documented command itself", async () => {
    const { url, db } = await testServer();
    setIssuerKey(execFileSync("sh", ["-c", "openssl rand 32 | basenc --base64url"]).toString().trim());
    expect(process.env.BI_ISSUER_SIGNING_KEY).toMatch(/=$/);
    const didDocument = (await client(url).get("/.well-known/did.json")).body;
    expect(didDocument.verificationMethod?.[0]?.publicKeyMultibase).toMatch(/^z/);

    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { credential } = await boundAccount(url, api);
    const independent = await verifyWithDigitalBazaar(credential, didDocument);
    expect(independent.error).toBeUndefined();
    expect(independent.verified).toBe(true);

    const requested = await api.post("/v1/compliance/export", {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 1000).toISOString(),
    });
    expect(requested.status, requested.text).toBe(200);
    for (let i = 0; i < 20; i++) {
      await runExportJobs(db, { limit: 10, orgId: org.orgId });
      if ((await db.exportJob.findUniqueOrThrow({ where: { id: requested.body.jobId } })).status === "completed") break;
    }
    const job = await api.get(`/v1/compliance/export/${requested.body.jobId}`);
    expect(job.body.status, job.text).toBe("completed");
    expect(verifyExportArtifact(job.body.artifact, didDocument.verificationMethod[0].publicKeyMultibase)).toMatchObject({ valid: true });
  }, 60_000);

  it("refuses anything else at start-up, naming the variable and never the value", () => {
    const seed = Buffer.from(Array.from({ length: 32 }, (_, i) => (i % 2 ? 0xfb : 0xff)));
    const refused = {
      garbage: "not a key at all!",
      "standard base64 (+ and /)": seed.toString("base64"),
      "31 bytes": basencBase64url(seed.subarray(1)),
      "33 bytes": basencBase64url(Buffer.concat([seed, seed.subarray(0, 1)])),
      "too much padding": `${seed.toString("base64url")}==`,
      "padding in the middle": `${seed.toString("base64url").slice(0, 20)}=${seed.toString("base64url").slice(20)}`,
      "a trailing newline": `${basencBase64url(seed)}\n`,
    };
    for (const [what, value] of Object.entries(refused)) {
      const message = problemsOf({ BI_ISSUER_SIGNING_KEY: value });
      expect(message, what).toMatch(/BI_ISSUER_SIGNING_KEY: must be a 32-byte Ed25519 seed in base64url/);
      expect(message, what).not.toContain(value.trim());
    }
    expect(problemsOf({ BI_ISSUER_SIGNING_KEY: basencBase64url(seed) })).toBe("");
    expect(problemsOf({ BI_ISSUER_SIGNING_KEY: seed.toString("base64url") })).toBe("");
    expect(problemsOf({ BI_ISSUER_PREVIOUS_KEYS: "zNotAKey" })).toMatch(/BI_ISSUER_PREVIOUS_KEYS: has 1 entries/);
  });
});
