import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the KYC provider fakes share: a node:http server on 127.0.0.1:0 that hands each request's
 * exact bytes to a handler, failure modes that answer like a struggling provider, and a sender
 * for provider callbacks.
 */
/** unavailable: 503 with Retry-After; server_error: 500 without one; rate_limited: 429 with Retry-After 7; hang: never answers. */
export type FakeFailureMode = "ok" | "unavailable" | "server_error" | "rate_limited" | "hang";

export type FakeAnswer = { status: number; json: unknown; headers?: Record<string, string> };
export type FakeRequest = { method: string; path: string; headers: http.IncomingHttpHeaders; raw: string };

/** The request body as JSON when it parses, else the raw text (a fake must see exactly what was sent). */
export function bodyOf(r: FakeRequest): unknown {
  if (!r.raw) return null;
  try {
    return JSON.parse(r.raw);
  } catch {
    return r.raw;
  }
}

export type FakeServer = { url: string; close(): Promise<void> };

export async function startFakeServer(handle: (req: FakeRequest) => FakeAnswer | null): Promise<FakeServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const answer = handle({
        method: req.method ?? "",
        path: req.url ?? "/",
        headers: req.headers,
        raw: Buffer.concat(chunks).toString("utf8"),
      });
      // null: accept the request and never answer, so the adapter's timeout has to end it.
      if (!answer) return;
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A failure mode that lasts: `set(mode)` for every following request, `times(mode, n)` for the
 * next n requests only (a provider that recovers), `current()` consumes one of those.
 */
export function failureSwitch() {
  let mode: FakeFailureMode = "ok";
  const queue: FakeFailureMode[] = [];
  return {
    set: (m: FakeFailureMode) => {
      mode = m;
      queue.length = 0;
    },
    times: (m: FakeFailureMode, n: number) => void queue.push(...Array.from({ length: n }, () => m)),
    current: (): FakeFailureMode => queue.shift() ?? mode,
  };
}

/** POSTs a callback's exact bytes and headers to a URL, as the provider would; answers the status. */
export async function postCallback(url: string, cb: { rawBody: Buffer; headers: Headers }): Promise<number> {
  const res = await fetch(url, { method: "POST", headers: cb.headers, body: new Uint8Array(cb.rawBody) });
  await res.arrayBuffer();
  return res.status;
}
