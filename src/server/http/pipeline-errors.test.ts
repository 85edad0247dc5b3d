import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../db/client";
import type { FakeServer } from "../testing/fake-http";
import { client, servePipeline } from "../testing/harness";
import { MAX_BODY_BYTES } from "./node-adapter";
import { route } from "./route";
import { routes } from "./routes";

// Routes that fail on purpose, served by the real pipeline next to the real route table.
const failing = [
  route({
    method: "GET",
    path: "/v1/test/crash",
    auth: "public",
    tag: "Test",
    summary: "throws",
    handler: async () => {
      throw new Error("password=hunter2 at db.internal:5432 (SELECT * FROM secrets)");
    },
  }),
  route({
    method: "GET",
    path: "/v1/test/db-error",
    auth: "public",
    tag: "Test",
    summary: "bad SQL",
    handler: async ({ state }) => state.db.$queryRawUnsafe("SELECT * FROM no_such_table_with_secret_name"),
  }),
];

let server: FakeServer;
let url: string;
beforeAll(async () => {
  server = await servePipeline(await getDb(), [...routes, ...failing]);
  url = server.url;
});
afterAll(() => server.close());

describe("errors the pipeline renders", () => {
  it("turns an unexpected exception into a 500 that leaks nothing", async () => {
    for (const path of ["/v1/test/crash", "/v1/test/db-error"]) {
      const res = await client(url).get(path, { headers: { "x-correlation-id": "crash-1" } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: "INTERNAL", message: "Something went wrong on our side.", correlationId: "crash-1" } });
      expect(res.text).not.toMatch(/hunter2|secrets|no_such_table|stack|at /);
    }
  });

  it("answers a wrong method and an oversized body in the envelope", async () => {
    const method = await client(url).put("/v1/health", {});
    expect(method.status).toBe(405);
    expect(method.body.error).toMatchObject({ code: "METHOD_NOT_ALLOWED", details: { allowed: ["GET"] } });
    const big = await fetch(`${url}/v1/health`, { method: "POST", body: "x".repeat(MAX_BODY_BYTES + 10) });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});
