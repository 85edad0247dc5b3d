import { describe, expect, it } from "vitest";
import { cidrContains, isCidr } from "./cidr";

// The page's warning before an admin saves an allowlist that leaves out their own address.
describe("cidrContains (allowlist lock-out warning)", () => {
  it("matches IPv4 ranges and single addresses", () => {
    expect(cidrContains("127.0.0.0/8", "127.0.0.1")).toBe(true);
    expect(cidrContains("203.0.113.0/24", "127.0.0.1")).toBe(false);
    expect(cidrContains("203.0.113.7", "203.0.113.7")).toBe(true);
    expect(cidrContains("203.0.113.7", "203.0.113.8")).toBe(false);
    expect(cidrContains("0.0.0.0/0", "198.51.100.1")).toBe(true);
    expect(cidrContains("198.51.100.128/25", "198.51.100.127")).toBe(false);
  });

  it("never claims a match for garbage, and treats mixed families as outside", () => {
    expect(cidrContains("not-a-cidr", "127.0.0.1")).toBe(false);
    expect(cidrContains("10.0.0.0/33", "10.0.0.1")).toBe(false);
    expect(cidrContains("2001:db8::/32", "127.0.0.1")).toBe(false);
    expect(cidrContains("10.0.0.0/8", "::1")).toBe(false);
  });
});

// Checked before the lock-out question: a typo must never be asked about as a lock-out.
describe("isCidr (allowlist entries checked before any confirmation)", () => {
  it("accepts addresses and ranges the service accepts", () => {
    for (const ok of ["203.0.113.0/24", "198.51.100.7", "0.0.0.0/0", "2001:db8::/32", "::1", "::ffff:192.0.2.1", "fe80::1/64"]) {
      expect(isCidr(ok), ok).toBe(true);
    }
  });

  it("refuses what is not one", () => {
    for (const bad of [
      "999.1.1.1/99",
      "10.0.0.0/33",
      "10/8",
      "010.0.0.1",
      "1.2.3",
      "2001:db8::/129",
      "fe80::1%eth0",
      "a.b.c.d",
      "1.2.3.4/",
      "",
    ]) {
      expect(isCidr(bad), bad).toBe(false);
    }
  });
});
