import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { didWebUrl } from "@/server/crypto/did-web";
import { issuerDidDocument } from "@/server/services/accounts";
import { issueAccountBindingCredential } from "@/server/services/accounts/credentials";
import { startFakeServer } from "@/server/testing/fake-http";

const run = promisify(execFile);

async function vcVerify(args: string[]) {
  try {
    const { stdout } = await run("npx", ["tsx", "scripts/vc-verify.ts", ...args], { env: { ...process.env, LOG_LEVEL: "silent" } });
    return { code: 0, out: JSON.parse(stdout.trim().split("\n").pop()!) };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: JSON.parse(e.stdout.trim().split("\n").pop()!) };
  }
}

describe("npm run vc:verify (offline)", () => {
  it("accepts a credential against the issuer's DID document and names the reason it refuses a changed one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vc-"));
    const { credential } = issueAccountBindingCredential({
      bindingId: crypto.randomUUID(),
      personDid: `did:web:localhost%3A3000:people:${crypto.randomUUID()}`,
      accountDid: "did:antelope:sandbox:verifyme1234",
      kycLevel: "basic-kyc",
      issuedAt: new Date(),
    });
    fs.writeFileSync(path.join(dir, "vc.json"), JSON.stringify(credential));
    fs.writeFileSync(path.join(dir, "did.json"), JSON.stringify(issuerDidDocument()));
    const good = await vcVerify([path.join(dir, "vc.json"), "--did-document", path.join(dir, "did.json")]);
    expect(good).toEqual({ code: 0, out: expect.objectContaining({ verified: true, issuer: credential.issuer }) });

    const changed = structuredClone(credential) as any;
    changed.credentialSubject.account = "did:antelope:sandbox:someoneelse1";
    fs.writeFileSync(path.join(dir, "changed.json"), JSON.stringify(changed));
    const bad = await vcVerify([path.join(dir, "changed.json"), "--did-document", path.join(dir, "did.json")]);
    expect(bad).toEqual({ code: 1, out: { verified: false, reason: "the signature does not match the credential's contents" } });
  }, 60_000);
});

describe("npm run vc:verify (resolving the issuer)", () => {
  it("with only the credential, as the README shows it, resolves the issuer's document over did:web", async () => {
    const server = await startFakeServer((req) =>
      req.path === "/.well-known/did.json" ? { status: 200, json: issuerDidDocument() } : { status: 404, json: {} },
    );
    const publicUrl = process.env.BI_PUBLIC_URL;
    process.env.BI_PUBLIC_URL = server.url;
    resetEnvCache();
    try {
      const { credential } = issueAccountBindingCredential({
        bindingId: crypto.randomUUID(),
        personDid: `${issuerDidDocument().id}:people:${crypto.randomUUID()}`,
        accountDid: "did:antelope:sandbox:resolveme123",
        kycLevel: "basic-kyc",
        issuedAt: new Date(),
      });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vc-"));
      fs.writeFileSync(path.join(dir, "vc.json"), JSON.stringify(credential));
      expect(await vcVerify([path.join(dir, "vc.json")])).toEqual({ code: 0, out: expect.objectContaining({ verified: true }) });
    } finally {
      process.env.BI_PUBLIC_URL = publicUrl;
      resetEnvCache();
      await server.close();
    }
  }, 60_000);
});

describe("did:web resolution", () => {
  it("maps DIDs to their document URLs", () => {
    expect(didWebUrl("did:web:example.com")).toBe("https://example.com/.well-known/did.json");
    expect(didWebUrl("did:web:example.com%3A8443")).toBe("https://example.com:8443/.well-known/did.json");
    expect(didWebUrl("did:web:example.com:people:abc")).toBe("https://example.com/people/abc/did.json");
    expect(didWebUrl("did:web:localhost%3A3000")).toBe("http://localhost:3000/.well-known/did.json");
    expect(() => didWebUrl("did:key:z6Mk")).toThrow();
  });
});
