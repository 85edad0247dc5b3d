import { describe, expect, it } from "vitest";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { boundAccount } from "../../testing/kyc-flow";

const preflight = (url: string, path: string, headers: Record<string, string> = {}) =>
  fetch(url + path, {
    method: "OPTIONS",
    headers: {
      origin: "https://verifier.example",
      "access-control-request-method": "GET",
      "access-control-request-headers": "if-none-match",
      ...headers,
    },
  });

describe("CORS on the documents browser verifiers read", () => {
  it("answers preflights of the DID documents and status lists with 204, every origin, the methods and headers they take", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const { credential, personDid } = await boundAccount(url, client(url, org.apiKey));
    const paths = [
      "/.well-known/did.json",
      `/people/${personDid.split(":").pop()}/did.json`,
      `/orgs/${org.orgId}/did.json`,
      new URL(credential.credentialStatus[0].statusListCredential).pathname,
    ];
    for (const path of paths) {
      const res = await preflight(url, path);
      expect(res.status, path).toBe(204);
      expect(await res.text()).toBe("");
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-allow-methods"), path).toBe("GET, HEAD, OPTIONS");
      const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase().split(/,\s*/);
      expect(allowed, path).toEqual(expect.arrayContaining(["accept", "if-none-match"]));
      expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      // Never an invitation to send cookies or credentials.
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();

      const got = await fetch(url + path, { headers: { origin: "https://verifier.example" } });
      expect(got.status, path).toBe(200);
      expect(got.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(got.headers.get("access-control-expose-headers")!.toLowerCase(), path).toContain("etag");
    }
  });

  it("puts the header on errors too, so a browser can read a 404; an OPTIONS that is no preflight is still 405", async () => {
    const { url } = await testServer();
    const missing = await fetch(`${url}/people/00000000-0000-4000-8000-000000000000/did.json`, {
      headers: { origin: "https://verifier.example" },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBe("*");
    expect((await missing.json()).error.code).toBe("NOT_FOUND");

    const plain = await fetch(`${url}/.well-known/did.json`, { method: "OPTIONS" });
    expect(plain.status).toBe(405);
    expect((await plain.json()).error.details.allowed).toEqual(["GET"]);
  });

  it("leaves /v1 closed to browsers: no preflight answer and no header (API keys are for servers)", async () => {
    const { url } = await testServer();
    const res = await preflight(url, "/v1/accounts/name-available", { "access-control-request-headers": "authorization" });
    expect(res.status).toBe(405);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const get = await fetch(`${url}/v1/openapi.json`, { headers: { origin: "https://verifier.example" } });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });
});
