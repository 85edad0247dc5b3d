import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { client, testServer } from "@/server/testing/harness";

/**
 * Rules of Redocly's `recommended` set we turn off, each with the reason. Nothing else is off:
 * a new warning fails this test, and is fixed where the document is built (src/server/http/openapi.ts).
 */
const OFF = {
  // The server is the deployment's own BI_PUBLIC_URL, which is localhost in development and in
  // these tests by design; a production deployment serves its public origin.
  "no-server-example.com": "off",
} as const;

describe("GET /v1/openapi.json under Redocly's recommended ruleset", () => {
  it("has no errors and no warnings", async () => {
    const { url } = await testServer();
    const res = await client(url).get("/v1/openapi.json");
    expect(res.status).toBe(200);
    const config = await createConfig({ extends: ["recommended"], rules: OFF });
    const problems = await lintFromString({ source: res.text, absoluteRef: `${url}/v1/openapi.json`, config });
    const listed = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(", ")}`);
    expect(listed).toEqual([]);
  }, 60_000);
});
