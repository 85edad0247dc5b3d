import { describe, expect, it } from "vitest";
import { REFUSED_ADDRESSES } from "../testing/ssrf-table";
import { addressRange, checkWebhookUrl, classifyAddress } from "./ssrf";
import { resolveChecked } from "./ssrf-request";

describe("address classification", () => {
  it.each(REFUSED_ADDRESSES)("refuses %s (%s)", (ip, range) => {
    expect(addressRange(ip)).toBe(range);
    expect(classifyAddress(ip, { allowPrivate: false })).toEqual({ allowed: false, range });
  });

  it.each(["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"])("admits public %s", (ip) => {
    expect(classifyAddress(ip, { allowPrivate: false })).toEqual({ allowed: true, range: "unicast" });
  });

  it("WEBHOOK_ALLOW_PRIVATE_URLS admits loopback, private and unique-local, never link-local or the rest", () => {
    for (const ip of ["127.0.0.1", "10.0.0.1", "192.168.0.10", "::1", "fd00::1"])
      expect(classifyAddress(ip, { allowPrivate: true }).allowed, ip).toBe(true);
    for (const ip of ["169.254.169.254", "fe80::1", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::ffff:127.0.0.1", "64:ff9b::7f00:1"]) {
      expect(classifyAddress(ip, { allowPrivate: true }).allowed, ip).toBe(false);
    }
  });

  it("treats anything unparseable as refused", () => {
    expect(classifyAddress("not-an-ip", { allowPrivate: true })).toEqual({ allowed: false, range: "invalid" });
    expect(classifyAddress("127.1", { allowPrivate: true }).allowed).toBe(false);
    expect(classifyAddress("fe80::1%eth0", { allowPrivate: true }).allowed).toBe(false);
  });
});

describe("receiver URL checks", () => {
  const strict = { allowPrivate: false };
  it.each([
    ["http://hooks.example.com/x", "must use https"],
    ["ftp://hooks.example.com/x", "must use https"],
    ["https://user:pw@hooks.example.com/x", "must not carry credentials"],
    ["https://hooks.example.com/x#frag", "must not carry a fragment"],
    ["not a url", "is not a valid absolute URL"],
    ["https://127.0.0.1/x", "(loopback)"],
    ["https://2130706433/x", "(loopback)"],
    ["https://0x7f.1/x", "(loopback)"],
    ["https://[::ffff:7f00:1]/x", "(ipv4Mapped)"],
    ["https://[64:ff9b::a9fe:a9fe]/x", "(rfc6052)"],
    ["https://169.254.169.254/latest/meta-data", "(linkLocal)"],
    ["https://localhost/x", "(loopback)"],
    ["https://api.localhost/x", "(loopback)"],
  ])("refuses %s", (url, reason) => {
    const v = checkWebhookUrl(url, strict);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason).toContain(reason);
  });

  it("admits a public https URL and, for local work only, http to loopback", () => {
    expect(checkWebhookUrl("https://hooks.example.com:8443/bi?x=1", strict)).toMatchObject({
      ok: true,
      hostname: "hooks.example.com",
      literal: false,
    });
    expect(checkWebhookUrl("http://127.0.0.1:9999/hook", { allowPrivate: true })).toMatchObject({ ok: true, literal: true });
    expect(checkWebhookUrl("http://[fe80::1]:9999/hook", { allowPrivate: true }).ok).toBe(false);
  });
});

describe("resolution", () => {
  const url = new URL("https://hooks.example.test/x");
  it("checks every address the host resolves to, and answers them all", async () => {
    const resolver = async () => [
      { address: "93.184.215.14", family: 4 as const },
      { address: "2606:4700:4700::1111", family: 6 as const },
    ];
    expect(await resolveChecked(url, { allowPrivate: false, resolver })).toEqual([
      { address: "93.184.215.14", family: 4 },
      { address: "2606:4700:4700::1111", family: 6 },
    ]);
  });

  it("refuses when any one address is refused", async () => {
    const resolver = async () => [
      { address: "93.184.215.14", family: 4 as const },
      { address: "10.0.0.7", family: 4 as const },
    ];
    await expect(resolveChecked(url, { allowPrivate: false, resolver })).rejects.toMatchObject({ kind: "refused_address" });
  });

  it("refuses a host that does not resolve", async () => {
    const resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    await expect(resolveChecked(url, { allowPrivate: false, resolver })).rejects.toMatchObject({ kind: "dns" });
  });
});
