import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { didWebUrl } from "@/server/crypto/did-web";
import { issuerDidDocument } from "@/server/services/accounts";
import { issueAccountBindingCredential } from "@/server/services/accounts/credentials";
import { entryArgs } from "@/server/testing/built-entries";
import { startFakeServer } from "@/server/testing/fake-http";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { boundAccount } from "@/server/testing/kyc-flow";

const run = promisify(execFile);

async function vcVerify(args: string[]) {
  try {
    // What `npm run vc:verify` runs, without npm's and tsx's wrapper processes (seconds each here).
    const { stdout } = await run(process.execPath, [...entryArgs("scripts/vc-verify.ts"), ...args], {
      env: { ...process.env, LOG_LEVEL: "silent" },
    });
    return { code: 0, out: JSON.parse(stdout.trim().split("\n").pop()!) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    const out = e.stdout.trim() ? JSON.parse(e.stdout.trim().split("\n").pop()!) : null;
    return { code: e.code, out, ...(e.stderr.trim() ? { err: e.stderr.trim() } : {}) };
  }
}

/** A loopback port nothing listens on (opened, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
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

  it("takes several lists after one --status-list, and says how old a list file is when it is older than a minute", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const { credential } = await boundAccount(url, client(url, org.apiKey));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vc-"));
    const file = (name: string, value: unknown) => {
      fs.writeFileSync(path.join(dir, name), JSON.stringify(value));
      return path.join(dir, name);
    };
    const lists = await Promise.all(
      credential.credentialStatus.map(async (e: any, i: number) =>
        file(`list-${i}.json`, (await call(url, "GET", new URL(e.statusListCredential).pathname)).body),
      ),
    );
    const vc = file("vc.json", credential);
    const did = file("did.json", (await call(url, "GET", "/.well-known/did.json")).body);

    // As the help text writes it: one flag, then the files; the credential may come before or after them.
    for (const args of [
      [vc, "--did-document", did, "--status-list", ...lists],
      ["--status-list", ...lists, vc, "--did-document", did],
    ]) {
      const fresh = await vcVerify(args);
      expect(fresh.code, args.join(" ")).toBe(0);
      expect(fresh.out.status).toMatchObject({ checked: true, set: [] });
      expect(fresh.out.status.entries.map((e: any) => e.file).sort()).toEqual([...lists].sort());
      expect(fresh.out.warnings).toBeUndefined();
      expect(fresh.out.status.warnings).toBeUndefined();
    }

    // Saved two hours ago: still read (the bits are the issuer's), and the verdict says how old it is.
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    for (const l of lists) fs.utimesSync(l, twoHoursAgo, twoHoursAgo);
    const stale = await vcVerify([vc, "--did-document", did, "--status-list", ...lists]);
    expect(stale.code).toBe(0);
    expect(stale.out.verified).toBe(true);
    expect(stale.out.warnings).toHaveLength(2);
    for (const [i, l] of lists.entries()) {
      const entry = stale.out.status.entries.find((e: any) => e.file === l);
      expect(entry.ageSeconds).toBeGreaterThanOrEqual(7200);
      expect(entry.ageSeconds).toBeLessThan(7300);
      expect(Math.abs(Date.parse(entry.fetchedAt) - twoHoursAgo.getTime())).toBeLessThan(1000);
      expect(stale.out.warnings.some((w: string) => w.includes(`read from ${l}, fetched 2 h 0 min ago`))).toBe(true);
      expect(stale.out.warnings[i]).toMatch(/longer than the 60 s a list stands for the current status/);
    }

    // A list that is neither given nor reachable: the verdict names the URL it tried.
    const [given, missing] = [lists[0]!, credential.credentialStatus[1].statusListCredential as string];
    const lonely = await vcVerify([vc, "--did-document", did, "--status-list", given]);
    expect(lonely.code).toBe(1);
    expect(lonely.out.reason).toContain(`could not be checked: fetching the status list: ${missing} `);
  }, 90_000);

  it("names the URL it tried when the issuer cannot be reached", async () => {
    const port = await closedPort();
    const { credential } = issueAccountBindingCredential({
      bindingId: crypto.randomUUID(),
      personDid: `did:web:localhost%3A3000:people:${crypto.randomUUID()}`,
      accountDid: "did:antelope:sandbox:unreachable1",
      kycLevel: "basic-kyc",
      issuedAt: new Date(),
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vc-"));
    // Only the issuer is changed: resolving it comes before the signature check.
    fs.writeFileSync(path.join(dir, "vc.json"), JSON.stringify({ ...credential, issuer: `did:web:127.0.0.1%3A${port}` }));
    const res = await vcVerify([path.join(dir, "vc.json")]);
    expect(res.code).toBe(1);
    expect(res.err).toContain(`http://127.0.0.1:${port}/.well-known/did.json could not be reached (ECONNREFUSED)`);
    expect(res.err).toContain(`did:web:127.0.0.1%3A${port}`);
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
