import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import { proxy } from "./proxy";

const connectSrc = (path: string) => {
  const csp = proxy(new NextRequest(`http://127.0.0.1:3000${path}`)).headers.get("content-security-policy") ?? "";
  return csp.split("; ").find((d) => d.startsWith("connect-src"));
};

describe("page security headers", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("lets only the bind page connect to the chain's public node and Anchor's callback service", () => {
    process.env.CHAIN_API_URL = "http://10.0.0.5:8888";
    process.env.CHAIN_PUBLIC_API_URL = "https://eos.node.example/some/path";
    expect(connectSrc("/bind")).toBe("connect-src 'self' https://cb.anchor.link wss://cb.anchor.link https://eos.node.example");
    expect(connectSrc("/console")).toBe("connect-src 'self'");
    expect(connectSrc("/bind/other")).toBe("connect-src 'self'");
  });

  it("falls back to CHAIN_API_URL, and never widens the policy for a URL that does not parse", () => {
    delete process.env.CHAIN_PUBLIC_API_URL;
    process.env.CHAIN_API_URL = "https://wax.node.example:8443";
    expect(connectSrc("/bind")).toContain(" https://wax.node.example:8443");
    process.env.CHAIN_API_URL = "not a url";
    expect(connectSrc("/bind")).toBe("connect-src 'self' https://cb.anchor.link wss://cb.anchor.link");
  });

  it("sends no referrer and no cache from the bind page", () => {
    const res = proxy(new NextRequest("http://127.0.0.1:3000/bind"));
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});
