import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { client, testServer } from "@/server/testing/harness";
import { API_DOCS_DIR, fencedBlocks } from "./docs-markdown";

const QUICKSTART = path.join(API_DOCS_DIR, "guides/quickstart.md");

/** Runs a script in bash with exactly the given environment; resolves with its output and exit code. */
function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { env: env as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("docs/api/guides/quickstart.md", () => {
  it("runs as printed against a fresh local service and leaves a working key, a free account and a bound account whose credential verifies", async () => {
    const { url, db } = await testServer();
    const blocks = fencedBlocks(fs.readFileSync(QUICKSTART, "utf8")).filter((b) => b.lang === "sh");
    expect(blocks.length).toBeGreaterThanOrEqual(9);
    expect(blocks[0]!.code).toContain('BI_URL="${BI_URL:-http://localhost:3000}"');

    // The guide's blocks in order, in one shell, then a line of ours that reports what they set.
    const script = ["set -euo pipefail", ...blocks.map((b) => b.code), 'printf "QUICKSTART %s %s\\n" "$BI_API_KEY" "$ACCOUNT_DID"'].join(
      "\n",
    );
    const run = await bash(script, { BI_URL: url, PATH: process.env.PATH ?? "/usr/bin:/bin" });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);

    const [, apiKey, accountDid] = /^QUICKSTART (\S+) (\S+)$/m.exec(run.stdout) ?? [];
    expect(apiKey).toMatch(/^bi_test_/);
    expect(accountDid).toMatch(/^did:antelope:[a-z0-9-]+:qs[a-e1-5]{10}$/);

    // The key works, and it belongs to a new Builder organization.
    const api = client(url, apiKey);
    const tenant = await api.get("/v1/tenant");
    expect(tenant.status, tenant.text).toBe(200);
    expect(tenant.body).toMatchObject({ name: "Quickstart Labs", environment: "sandbox", plan: { id: "builder" } });

    // The account exists in that organization, provisional, with the guide's owner key.
    const account = await db.account.findFirstOrThrow({ where: { did: accountDid } });
    expect(account.orgId).toBe(tenant.body.organizationId);
    expect(account.lifecycle).toBe("provisional");
    expect(account.ownerPublicKey).toMatch(/^PUB_K1_|^EOS/);
    const read = await api.get(`/v1/accounts/${encodeURIComponent(accountDid!)}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.accountDid).toBe(accountDid);

    // What the guide printed is what the service answered at each step.
    expect(run.stdout).toContain('"status": "provisioned"');
    expect(run.stdout).toContain('"available": true');
    expect(run.stdout).toContain('"lifecycle": "provisional"');
    // Steps 8 and 9: a person bound by a wallet's proof, and the credential verified with its status.
    expect(run.stdout).toContain('"bound": true');
    expect(run.stdout).toMatch(/"verified": true,\s+"status": \{\s+"checked": true/);
    expect(await db.accountBinding.count({ where: { orgId: tenant.body.organizationId, status: "active" } })).toBe(1);
  }, 120_000);
});
