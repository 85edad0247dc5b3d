import { describe, expect, it } from "vitest";
import { client, createTestOrg, testServer } from "../testing/harness";

describe("the /v1 pipeline", () => {
  it("answers health publicly with a generated correlation id", async () => {
    const { url } = await testServer();
    const res = await client(url).get("/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expect(res.headers.get("x-correlation-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("echoes a well-formed X-Correlation-Id and replaces a malformed one", async () => {
    const { url } = await testServer();
    const ok = await client(url).get("/v1/health", { headers: { "x-correlation-id": "abc-123" } });
    expect(ok.headers.get("x-correlation-id")).toBe("abc-123");
    const bad = await client(url).get("/v1/health", { headers: { "x-correlation-id": "x".repeat(300) } });
    expect(bad.headers.get("x-correlation-id")).not.toBe("x".repeat(300));
  });

  it("answers an unknown route with the 404 envelope", async () => {
    const { url } = await testServer();
    const res = await client(url).get("/v1/nope", { headers: { "x-correlation-id": "c1" } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { code: "NOT_FOUND", message: "No such route.", details: { path: "/v1/nope" }, correlationId: "c1" },
    });
  });

  it("answers ready once migrations are applied", async () => {
    const { url } = await testServer();
    const res = await client(url).get("/v1/ready");
    expect(res.status).toBe(200);
  });

  it("serves the tenant posture to a valid key, with the plan quota header", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).get("/v1/tenant");
    expect(res.status).toBe(200);
    expect(res.body.organizationId).toBe(org.orgId);
    expect(res.body.plan).toEqual({ id: "builder", name: "Builder", limits: { requestsPerMinute: 120 } });
    expect(Number(res.headers.get("x-ratelimit-plan-remaining"))).toBe(119);
    expect(res.headers.get("x-ratelimit-limit")).toBe("6000");
  });

  it("reports whoami as the socket address", async () => {
    const { url } = await testServer();
    const res = await client(url).get("/v1/whoami", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(res.body).toEqual({ clientIp: "127.0.0.1" });
  });
});
