import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/server/testing/instance";

const run = promisify(execFile);

/**
 * The README's promise, end to end: `npm start` on the embedded default database (no
 * DATABASE_URL), then `npm run org:create`, then /v1/health and an authenticated /v1/tenant with
 * the printed key. This builds the Next app, so it is the slowest test in the suite.
 */
describe("the service as the README starts it", () => {
  let child: ChildProcess;
  let base: string;
  let childEnv: NodeJS.ProcessEnv;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-smoke-"));
  let output = "";

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    childEnv = { ...process.env, PORT: String(port), BI_DATA_DIR: dataDir, LOG_LEVEL: "info" };
    for (const k of ["DATABASE_URL", "VITEST", "NODE_ENV"]) delete (childEnv as Record<string, string | undefined>)[k];
    child = spawn("npm", ["start"], { env: childEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    const deadline = Date.now() + 240_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output.slice(-3000)}`);
      try {
        // Ready, not just alive: on a busy machine the database may still be opening when /v1/health answers.
        if ((await fetch(`${base}/v1/health`)).ok && (await fetch(`${base}/v1/ready`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`npm start did not answer in time:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }, 300_000);

  afterAll(async () => {
    if (child?.pid) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("publishes no source file among the site's static files", () => {
    // Next's bundler copies a file that `new URL("./x.ts", import.meta.url)` names into
    // .next/static, which the site serves to anyone (platform/ts-thread.ts builds such paths
    // from strings instead), and into .next/server/assets, where the copy could not run.
    const files = (dir: string): string[] =>
      fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).map((f) => path.join(dir, f)) : [];
    const sources = [...files(".next/static"), ...files(".next/server/assets")].filter((f) => /\.[cm]?tsx?$/.test(f));
    expect(sources).toEqual([]);
  });

  it("answers health, readiness and the home page", async () => {
    expect(await (await fetch(`${base}/v1/health`)).json()).toEqual({ status: "ok" });
    expect((await fetch(`${base}/v1/ready`)).status).toBe(200);
    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Know who is behind every free chain account");
    expect(fs.existsSync(path.join(dataDir, "pglite"))).toBe(true);
  });

  it("answers the wallet issuance metadata beside the pages (the pipeline claims its paths, not Next)", async () => {
    const res = await fetch(`${base}/.well-known/openid-credential-issuer`);
    expect(res.status).toBe(200);
    const metadata = await res.json();
    expect(metadata.credential_endpoint).toMatch(/\/oid4vci\/credential$/);
    expect((await fetch(`${base}/.well-known/jwt-vc-issuer`)).status).toBe(200);
  });

  it("serves an authenticated /v1/tenant with the key org:create printed while the service runs", async () => {
    const { stdout } = await run("npm", ["run", "--silent", "org:create", "--", "--name", "Smoke Co", "--email", "ops@smoke.test"], {
      env: childEnv,
      timeout: 60_000,
    });
    const printed = JSON.parse(stdout.trim().split("\n").pop()!);
    expect(printed.apiKey).toMatch(/^bi_test_/);
    expect(printed.consolePassword).toMatch(/^\S{5}-\S{5}-\S{5}-\S{5}$/);
    const res = await fetch(`${base}/v1/tenant`, { headers: { authorization: `Bearer ${printed.apiKey}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.organizationId).toBe(printed.organizationId);
    expect(body.name).toBe("Smoke Co");
    expect(body.environment).toBe("sandbox");
  });
});
