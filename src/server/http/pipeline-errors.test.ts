import net from "node:net";
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

  it("answers what Node's parser refuses in the envelope: headers over 16 KiB, broken framing", async () => {
    // Node alone answers these with a bare status and no body, before any handler runs.
    const long = await fetch(`${url}/v1/aml/cases?q=${"x".repeat(17_000)}`);
    expect(long.status).toBe(431);
    expect(long.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const body = await long.json();
    expect(body.error).toMatchObject({ code: "HEADERS_TOO_LARGE", correlationId: expect.any(String) });
    expect(long.headers.get("x-correlation-id")).toBe(body.error.correlationId);
    // A header line with no colon: 400 VALIDATION_ERROR, and the connection is closed.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(url).port), "127.0.0.1", () => {
        socket.write("GET /v1/health HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n");
      });
      let text = "";
      socket.on("data", (c) => (text += c));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw).toMatch(/\r\nConnection: close\r\n/);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)).error).toMatchObject({
      code: "VALIDATION_ERROR",
      message: expect.any(String),
    });
  });
});
