import { randomUUID } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { createTRPCClient, TRPCClientError } from "@trpc/client";
import type { NextConfig } from "next";
import { getCloneableBody, requestToBodyStream } from "next/dist/server/body-streams";
import { NextRequest } from "next/server";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/trpc/[trpc]/route";
import { consoleLinks } from "@/trpc/links";
import { consoleAuthSecret } from "../auth/options";
import { getDb } from "../db/client";
import { completeConsoleSignIn } from "../services/org/console-auth";
import { UPLOAD_MAX_BYTES } from "../services/screening";
import { listenOnLoopback } from "../testing/fake-http";
import { createTestOrg } from "../testing/harness";
import { CONSOLE_MAX_BODY_BYTES } from "./body-limit";
import type { AppRouter } from "./root";

// The console's door as Next serves it: Next's own buffering of the body for the proxy
// (src/proxy.ts runs on every console request), with next.config.mjs's limit, then the route
// handler of src/app/api/trpc/[trpc]/route.ts itself, signed in with a real session cookie.

let server: { url: string; close(): Promise<void> };
let cookie: string;

beforeAll(async () => {
  const { default: config } = (await import(path.resolve("next.config.mjs"))) as { default: NextConfig };
  // Next's default (10 MiB) when unset; Next turns a size written as text into bytes before using it.
  const proxyLimit = config.experimental?.proxyClientMaxBodySize as number | undefined;
  const node = http.createServer(async (req, res) => {
    const body = getCloneableBody(req, proxyLimit);
    body.cloneBodyStream(); // what the proxy is handed; it reads headers only
    await body.finalize();
    const request = new NextRequest(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "POST" ? requestToBodyStream({ ReadableStream }, Uint8Array, req) : undefined,
      duplex: "half",
    } as ConstructorParameters<typeof NextRequest>[1]);
    const answer = await POST(request);
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  server = await listenOnLoopback(node);

  const org = await createTestOrg();
  const claims = await completeConsoleSignIn(
    await getDb(),
    { organizationId: org.orgId, email: `officer-${process.pid}@limits.test`, password: org.consolePassword },
    "203.0.113.7",
  );
  const { orgId, email, bootstrap, pwf, sid } = claims;
  cookie = `next-auth.session-token=${await encode({ token: { orgId, email, bootstrap, pwf, sid }, secret: consoleAuthSecret() })}`;
});

afterAll(async () => {
  await server.close();
});

const signedIn: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("cookie", cookie);
  return fetch(input, { ...init, headers });
};

/** The console's own client and links, as the upload form sends (a submission key, so alone). */
const upload = (input: { format: "ftm" | "ofac" | "labels"; list: string; files: { name: string; contentBase64: string }[] }) =>
  createTRPCClient<AppRouter>({ links: consoleLinks(`${server.url}/api/trpc`, signedIn) })
    .screening.uploadList.mutate(input, { context: { idempotencyKey: randomUUID() } })
    .then(
      () => null,
      (e: unknown) => e as TRPCClientError<AppRouter>,
    );

/** An FtM file of exactly `size` bytes: blank padding, then on its last line a Person without an id. */
function ftmFileOf(size: number): string {
  const last = '\n{"schema":"Person","properties":{"name":["Pat Doe"]}}';
  return Buffer.from(" ".repeat(size - last.length) + last).toString("base64");
}

/** A raw console call whose body is exactly `size` bytes (the base64 is padded to fit). */
async function rawUpload(size: number, opts: { chunked?: boolean } = {}) {
  const head = '{"json":{"format":"ftm","list":"own-raw","files":[{"name":"own.json","contentBase64":"';
  const tail = '"}]}}';
  const text = head + "A".repeat(size - head.length - tail.length) + tail;
  const bytes = Buffer.from(text);
  expect(bytes.length).toBe(size);
  const body = opts.chunked
    ? new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 1 << 20) c.enqueue(bytes.subarray(i, i + (1 << 20)));
          c.close();
        },
      })
    : bytes;
  const res = await signedIn(`${server.url}/api/trpc/screening.uploadList`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": randomUUID() },
    body,
    duplex: "half",
  } as RequestInit);
  return { status: res.status, body: (await res.json()) as { error: { json: { message: string; data: Record<string, unknown> } } } };
}

describe("the console's body limit", () => {
  it("admits a screening list of the advertised size whole, and refuses one byte more as the upload's own error", async () => {
    // Exactly the advertised size: the JSON arrives whole, so the parser reaches the file's last line.
    const atLimit = await upload({
      format: "ftm",
      list: "own-at-limit",
      files: [{ name: "own.json", contentBase64: ftmFileOf(UPLOAD_MAX_BYTES) }],
    });
    expect(atLimit).toBeInstanceOf(TRPCClientError);
    expect(atLimit!.data).toMatchObject({ httpStatus: 400, appCode: "VALIDATION_ERROR" });
    expect((atLimit!.data as { details?: unknown }).details).toEqual({
      issues: [{ path: "body.files", message: "own.json, line 2: Person without an id" }],
    });

    const over = await upload({
      format: "ftm",
      list: "own-over",
      files: [{ name: "own.json", contentBase64: ftmFileOf(UPLOAD_MAX_BYTES + 1) }],
    });
    expect(over!.data).toMatchObject({ httpStatus: 400, appCode: "VALIDATION_ERROR" });
    expect((over!.data as { details?: unknown }).details).toEqual({
      issues: [{ path: "body.files", message: "the files are larger than 10 MB together" }],
    });
  }, 120_000);

  it("answers a body over the limit 413 in the console's error envelope, with or without a length, however far over", async () => {
    // At the limit the body is read (and its oversized base64 refused by the input schema).
    const at = await rawUpload(CONSOLE_MAX_BODY_BYTES);
    expect(at.status).toBe(400);
    expect(at.body.error.json.data).toMatchObject({ code: "BAD_REQUEST", httpStatus: 400 });

    for (const [size, chunked] of [
      [CONSOLE_MAX_BODY_BYTES + 1, false],
      [CONSOLE_MAX_BODY_BYTES + 1, true],
      // Past what Next buffers for the proxy: it passes on a cut body, which must not read as broken JSON.
      [16 * 1024 * 1024 + 1024, true],
    ] as const) {
      const res = await rawUpload(size, { chunked });
      expect(res.status, `${size} ${chunked}`).toBe(413);
      expect(res.body.error.json.message).toBe(`The request body is larger than ${CONSOLE_MAX_BODY_BYTES} bytes.`);
      expect(res.body.error.json.data).toMatchObject({
        code: "PAYLOAD_TOO_LARGE",
        httpStatus: 413,
        appCode: "PAYLOAD_TOO_LARGE",
        details: { maxBytes: CONSOLE_MAX_BODY_BYTES },
      });
    }
  }, 120_000);
});
