import { describe, expect, it } from "vitest";
import { compileCidrs } from "../../net/cidr";
import { resolveClientIp } from "./client-ip";

const proxies = compileCidrs(["10.0.0.0/8", "2001:db8:ffff::/48"]);
const none = compileCidrs([]);

describe("resolveClientIp", () => {
  it("is the socket peer when no proxy is trusted, whatever the header says", () => {
    expect(resolveClientIp("198.51.100.7", "203.0.113.5", none)).toBe("198.51.100.7");
    expect(resolveClientIp("198.51.100.7", null, none)).toBe("198.51.100.7");
  });

  it("ignores the header from a peer outside the trusted proxies", () => {
    expect(resolveClientIp("198.51.100.7", "203.0.113.5", proxies)).toBe("198.51.100.7");
    expect(resolveClientIp("198.51.100.7", "10.0.0.1", proxies)).toBe("198.51.100.7");
  });

  it("believes the header from a trusted peer", () => {
    expect(resolveClientIp("10.0.0.2", "203.0.113.5", proxies)).toBe("203.0.113.5");
    expect(resolveClientIp("2001:db8:ffff::2", "2001:db8:1::9", proxies)).toBe("2001:db8:1::9");
  });

  it("is the peer when a trusted peer sends no header", () => {
    expect(resolveClientIp("10.0.0.2", null, proxies)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", "", proxies)).toBe("10.0.0.2");
  });

  it("walks a chain of trusted hops from the right to the first untrusted address", () => {
    expect(resolveClientIp("10.0.0.2", "203.0.113.5, 10.1.1.1, 10.2.2.2", proxies)).toBe("203.0.113.5");
    expect(resolveClientIp("10.0.0.2", "203.0.113.5,10.1.1.1", proxies)).toBe("203.0.113.5");
  });

  it("does not let a client prepend addresses past the first untrusted hop", () => {
    // The left part is whatever the client sent; only the part the trusted proxies appended counts.
    expect(resolveClientIp("10.0.0.2", "127.0.0.1, 192.0.2.1, 203.0.113.5, 10.1.1.1", proxies)).toBe("203.0.113.5");
  });

  it("is the leftmost address when every hop is trusted", () => {
    expect(resolveClientIp("10.0.0.2", "10.9.9.9, 10.1.1.1", proxies)).toBe("10.9.9.9");
  });

  it("normalises IPv4-mapped IPv6 peers and hops", () => {
    expect(resolveClientIp("::ffff:198.51.100.7", null, none)).toBe("198.51.100.7");
    expect(resolveClientIp("::ffff:10.0.0.2", "203.0.113.5", proxies)).toBe("203.0.113.5");
    expect(resolveClientIp("::ffff:10.0.0.2", "::ffff:203.0.113.5", proxies)).toBe("203.0.113.5");
    expect(resolveClientIp("::ffff:198.51.100.7", "203.0.113.5", proxies)).toBe("198.51.100.7");
  });

  it("normalises IPv6 text to one form", () => {
    expect(resolveClientIp("2001:DB8:0:0:0:0:0:1", null, none)).toBe("2001:db8::1");
  });

  it("stops believing the header at garbage and never returns it", () => {
    expect(resolveClientIp("10.0.0.2", "not-an-ip", proxies)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", "203.0.113.5, garbage", proxies)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", "garbage, 203.0.113.5", proxies)).toBe("203.0.113.5");
    expect(resolveClientIp("10.0.0.2", "203.0.113.5, 10.1.1.1, <script>", proxies)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", " , ,", proxies)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", "999.1.1.1", proxies)).toBe("10.0.0.2");
  });

  it("ignores a port or a bracketed form it cannot parse rather than guessing", () => {
    const out = resolveClientIp("10.0.0.2", "203.0.113.5:4711", proxies);
    expect(out).toBe("10.0.0.2");
  });
});
