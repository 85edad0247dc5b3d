import { describe, expect, it } from "vitest";
import { listenOperatorMetrics } from "../src/server/metrics";
import { client, createTestOrg, testServer } from "../src/server/testing/harness";

describe("GET /v1/metrics", () => {
  it("shows a tenant its own requests by route template and status, with latency, and nothing of the platform or other tenants", async () => {
    const { url } = await testServer();
    const [mine, theirs] = [await createTestOrg(), await createTestOrg()];
    const api = client(url, mine.apiKey);
    await api.get("/v1/accounts/did%3Aantelope%3Asandbox%3Anosuchname1");
    await client(url, theirs.apiKey).get("/v1/admin/members");
    await client(url).get("/v1/nope");
    const res = await api.get("/v1/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = res.text;
    expect(text).toMatch(/bi_http_requests_total\{method="GET",route="\/v1\/accounts\/\{did\}",status="404"\} 1\n/);
    expect(text).toMatch(/bi_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/v1\/accounts\/\{did\}"\} \d+/);
    expect(text).not.toContain("nosuchname1");
    expect(text).not.toContain("/v1/admin/members");
    expect(text).not.toContain("unmatched");
    expect(text).not.toContain("bi_process_cpu_user_seconds_total");
    expect(text).not.toContain("bi_nodejs_heap_size_used_bytes");
    expect(text).not.toContain(mine.orgId);
    expect(text).not.toContain(theirs.orgId);
  });

  it("requires the read scope like any authenticated route", async () => {
    const { url } = await testServer();
    expect((await client(url).get("/v1/metrics")).status).toBe(401);
  });
});

describe("the operator's metrics endpoint (BI_METRICS_PORT)", () => {
  it("serves every request count, unmatched paths included, and the process metrics, on its own address", async () => {
    const { url } = await testServer();
    await client(url).get("/v1/nope");
    const operator = await listenOperatorMetrics(0, "127.0.0.1");
    try {
      const res = await fetch(`${operator.url}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/bi_http_requests_total\{method="GET",route="unmatched",status="404"\} \d+/);
      expect(text).toContain("bi_process_cpu_user_seconds_total");
      expect(text).toContain("bi_nodejs_heap_size_used_bytes");
      expect((await fetch(`${operator.url}/other`)).status).toBe(404);
    } finally {
      await operator.close();
    }
  });
});
