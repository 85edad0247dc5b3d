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
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { boundAccount } from "@/server/testing/kyc-flow";

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
    // Issued without status entries, as credentials before status lists were: it verifies, with no status information.
    expect(good.out.status).toMatchObject({ checked: false });

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

describe("npm run vc:verify (status)", () => {
  it("reads the status lists: valid while no bit is set, then says suspended or revoked and when it fetched the list", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { credential, accountDid } = await boundAccount(url, api);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vc-"));
    const file = (name: string, value: unknown) => {
      fs.writeFileSync(path.join(dir, name), JSON.stringify(value));
      return path.join(dir, name);
    };
    const args = async () => {
      const lists = await Promise.all(
        credential.credentialStatus.map(async (e: any, i: number) =>
          file(`list-${i}.json`, (await call(url, "GET", new URL(e.statusListCredential).pathname)).body),
        ),
      );
      const did = file("did.json", (await call(url, "GET", "/.well-known/did.json")).body);
      return [file("vc.json", credential), "--did-document", did, ...lists.flatMap((l) => ["--status-list", l])];
    };
    const fresh = await vcVerify(await args());
    expect(fresh.code).toBe(0);
    expect(fresh.out.status).toMatchObject({ checked: true, set: [] });
    expect(fresh.out.status.entries.map((e: any) => e.purpose).sort()).toEqual(["revocation", "suspension"]);
    expect(Date.parse(fresh.out.status.entries[0].fetchedAt)).toBeGreaterThan(Date.now() - 60_000);

    const [binding] = (await api.get(`/v1/accounts/${encodeURIComponent(accountDid)}`)).body.bindings;
    await db.credentialStatusEntry.updateMany({
      where: { bindingId: binding.bindingId, purpose: "suspension" },
      data: { set: true, changedAt: new Date() },
    });
    const suspended = await vcVerify(await args());
    expect(suspended).toMatchObject({
      code: 1,
      out: { verified: false, reason: "the credential is suspended (its suspension bit is set)" },
    });
    expect(suspended.out.status.set).toEqual(["suspension"]);

    expect((await api.post(`/v1/bindings/${binding.bindingId}/revoke`, { reason: "vc:verify test" })).status).toBe(200);
    const revoked = await vcVerify(await args());
    expect(revoked).toMatchObject({ code: 1, out: { verified: false, reason: "the credential is revoked (its revocation bit is set)" } });
    expect(revoked.out.status.set.sort()).toEqual(["revocation", "suspension"]);

    // A list that is not the issuer's signed list is refused, not read.
    const listFile = (await args()).find((a) => a.includes("list-0"))!;
    const forged = JSON.parse(fs.readFileSync(listFile, "utf8"));
    forged.credentialSubject.encodedList = "uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA";
    fs.writeFileSync(listFile, JSON.stringify(forged));
    const didFile = path.join(dir, "did.json");
    const bad = await vcVerify([
      path.join(dir, "vc.json"),
      "--did-document",
      didFile,
      "--status-list",
      listFile,
      "--status-list",
      path.join(dir, "list-1.json"),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.out.reason).toMatch(/could not be checked: the status list .* does not verify/);
  }, 90_000);
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
