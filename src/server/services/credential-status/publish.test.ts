import { describe, expect, it } from "vitest";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { checkStatusWithDigitalBazaar } from "../../testing/independent-status-checker";
import { boundAccount } from "../../testing/kyc-flow";

type Entry = { statusPurpose: string; statusListCredential: string; statusListIndex: string };

const suspensionEntry = (credential: { credentialStatus: Entry[] }) =>
  credential.credentialStatus.find((e) => e.statusPurpose === "suspension")!;

describe("published status lists", () => {
  it("answers application/vc and application/vc+ld+json when asked, with the same signed bytes, its own ETag and Vary: Accept", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const { credential } = await boundAccount(url, client(url, org.apiKey));
    const listUrl = url + new URL(suspensionEntry(credential).statusListCredential).pathname;

    const plain = await fetch(listUrl);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(plain.headers.get("vary")).toBe("Accept");
    const body = await plain.text();
    const jsonTag = plain.headers.get("etag")!;

    const seen = new Set([jsonTag]);
    for (const [accept, type] of [
      ["application/vc", "application/vc"],
      ["application/vc+ld+json", "application/vc+ld+json"],
      ["application/json;q=0.5, application/vc", "application/vc"],
      ["application/vc, */*;q=0.1", "application/vc"],
    ] as const) {
      const res = await fetch(listUrl, { headers: { accept } });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type"), accept).toBe(type);
      expect(res.headers.get("vary")).toBe("Accept");
      expect(await res.text(), accept).toBe(body);
      const tag = res.headers.get("etag")!;
      expect(tag).not.toBe(jsonTag);
      seen.add(tag);
      // Its own ETag revalidates its own representation.
      const again = await fetch(listUrl, { headers: { accept, "if-none-match": tag } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(tag);
      // The JSON representation's ETag does not stand for it.
      expect((await fetch(listUrl, { headers: { accept, "if-none-match": jsonTag } })).status).toBe(200);
    }
    expect(seen.size).toBe(3);

    // JSON stays the default, and what no offer satisfies still gets JSON.
    for (const accept of ["*/*", "application/json", "application/*", "text/html", "application/vc;q=0, application/json"]) {
      const res = await fetch(listUrl, { headers: { accept } });
      expect(res.headers.get("content-type"), accept).toBe("application/json; charset=utf-8");
      expect(res.headers.get("etag"), accept).toBe(jsonTag);
    }
  });

  it("Digital Bazaar's status checker reads the list fetched as application/vc", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const { credential } = await boundAccount(url, client(url, org.apiKey));
    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    const fetchAsVc = async (listUrl: string) => {
      const res = await fetch(url + new URL(listUrl).pathname, { headers: { accept: "application/vc" } });
      expect(res.headers.get("content-type")).toBe("application/vc");
      return res.json();
    };
    expect(await checkStatusWithDigitalBazaar(credential, issuer, fetchAsVc)).toEqual({
      verified: true,
      revocation: false,
      suspension: false,
    });
    const index = Number(suspensionEntry(credential).statusListIndex);
    await db.credentialStatusEntry.updateMany({
      where: { index, purpose: "suspension", listId: new URL(suspensionEntry(credential).statusListCredential).pathname.split("/").pop() },
      data: { set: true, changedAt: new Date() },
    });
    expect(await checkStatusWithDigitalBazaar(credential, issuer, fetchAsVc)).toEqual({
      verified: true,
      revocation: false,
      suspension: true,
    });
  });

  it("gives validFrom to the millisecond, so two changes within one second publish lists a verifier can order", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const a = await boundAccount(url, api);
    const b = await boundAccount(url, api);
    const [ea, eb] = [suspensionEntry(a.credential), suspensionEntry(b.credential)];
    // Both suspension entries are on one list (lists are shared until one is full).
    expect(eb.statusListCredential).toBe(ea.statusListCredential);
    const listId = new URL(ea.statusListCredential).pathname.split("/").pop()!;
    const list = async () => (await call(url, "GET", `/credentials/status/${listId}`)).body;

    // Two changes in the same second, 500 ms apart, after every earlier change of the list and
    // (once waited for) not in the future, which a verifier would refuse as not yet valid.
    const second = Math.ceil(Date.now() / 1000) * 1000;
    const first = new Date(second + 200);
    const later = new Date(second + 700);
    await new Promise((resolve) => setTimeout(resolve, later.getTime() + 50 - Date.now()));
    await db.credentialStatusEntry.updateMany({
      where: { listId, purpose: "suspension", index: Number(ea.statusListIndex) },
      data: { set: true, changedAt: first },
    });
    const before = await list();
    await db.credentialStatusEntry.updateMany({
      where: { listId, purpose: "suspension", index: Number(eb.statusListIndex) },
      data: { set: true, changedAt: later },
    });
    const after = await list();

    expect(before.validFrom).toBe(first.toISOString());
    expect(after.validFrom).toBe(later.toISOString());
    expect(after.validFrom > before.validFrom).toBe(true);
    expect(after.credentialSubject.encodedList).not.toBe(before.credentialSubject.encodedList);
    // Both lists still verify as the issuer's (Digital Bazaar checks the list's proof and dates).
    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    const lists = async (u: string) => (u === ea.statusListCredential ? after : (await call(url, "GET", new URL(u).pathname)).body);
    expect(await checkStatusWithDigitalBazaar(b.credential, issuer, lists)).toEqual({
      verified: true,
      revocation: false,
      suspension: true,
    });
  });
});
