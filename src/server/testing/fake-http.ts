import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";

/**
 * What the test fakes share: a node:http server on a loopback port that hands each request's
 * exact bytes to a handler, failure modes that answer like a struggling provider, and a sender
 * for provider callbacks.
 */
/** unavailable: 503 with Retry-After; server_error: 500 without one; rate_limited: 429 with Retry-After 7; hang: never answers. */
export type FakeFailureMode = "ok" | "unavailable" | "server_error" | "rate_limited" | "hang";

/** `json` goes out as application/json (headers may add to or override that); `body` goes out as is, with only `headers`. */
export type FakeAnswer = { status: number; headers?: Record<string, string> } & ({ json: unknown } | { body: string | Buffer });
export type FakeRequest = { method: string; path: string; headers: http.IncomingHttpHeaders; raw: string; bytes: Buffer };
/** null: accept the request and never answer, so the client's timeout has to end it. */
export type FakeHandler = (req: FakeRequest) => FakeAnswer | null | Promise<FakeAnswer | null>;

/** The request body as JSON when it parses, else the raw text (a fake must see exactly what was sent). */
export function bodyOf(r: FakeRequest): unknown {
  if (!r.raw) return null;
  try {
    return JSON.parse(r.raw);
  } catch {
    return r.raw;
  }
}

export type FakeServer = { url: string; port: number; close(): Promise<void> };

/**
 * Listens on a free port of `host`. close() also ends open connections: a fake left hanging on
 * purpose, or a client's keep-alive socket, must not hold a test's teardown.
 */
export async function listenOnLoopback(server: http.Server | https.Server, host = "127.0.0.1"): Promise<FakeServer> {
  // Node closes a connection idle for 5 s; on a loaded machine a client may pick that socket for
  // its next request just as it closes (ECONNRESET, "fetch failed"). Leave closing idle sockets to
  // the client, as the service itself does (app.ts: 65 s).
  if (server.keepAliveTimeout === 5000) server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${server instanceof https.Server ? "https" : "http"}://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function reply(res: http.ServerResponse, answer: FakeAnswer | null) {
  if (!answer) return;
  if ("json" in answer) {
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(JSON.stringify(answer.json));
  } else {
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }
}

/** A fake on a free port of `host` (loopback unless told): each request, once fully read, goes to `handle`. */
export async function startFakeServer(handle: FakeHandler, host?: string): Promise<FakeServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const bytes = Buffer.concat(chunks);
      const answer = handle({ method: req.method ?? "", path: req.url ?? "/", headers: req.headers, raw: bytes.toString("utf8"), bytes });
      if (answer instanceof Promise) void answer.then((a) => reply(res, a));
      else reply(res, answer);
    });
  });
  return listenOnLoopback(server, host);
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

/** What every provider fake exposes besides its own state: where it listens, its failure switch, a callback sender, close. */
export function fakeControls(server: FakeServer, failures: ReturnType<typeof failureSwitch>) {
  return { url: server.url, setMode: failures.set, failNext: failures.times, send: postCallback, close: server.close };
}
