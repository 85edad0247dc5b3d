import { describe, expect, it } from "vitest";
import { client, createTestOrg, testServer } from "../src/server/testing/harness";

describe("GET /v1/metrics", () => {
  it("exposes requests by route template and status, a latency histogram and process metrics", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    await api.get("/v1/accounts/did%3Aantelope%3Asandbox%3Anosuchname1");
    await client(url).get("/v1/nope");
    const res = await api.get("/v1/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = res.text;
    expect(text).toMatch(/bi_http_requests_total\{method="GET",route="\/v1\/accounts\/\{did\}",status="404"\} \d+/);
    expect(text).toMatch(/bi_http_requests_total\{method="GET",route="unmatched",status="404"\} \d+/);
    expect(text).not.toContain("nosuchname1");
    expect(text).toMatch(/bi_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/v1\/accounts\/\{did\}"\} \d+/);
    expect(text).toContain("bi_process_cpu_user_seconds_total");
    expect(text).toContain("bi_nodejs_heap_size_used_bytes");
  });

  it("requires the read scope like any authenticated route", async () => {
    const { url } = await testServer();
    expect((await client(url).get("/v1/metrics")).status).toBe(401);
  });
});
