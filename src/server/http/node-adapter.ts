import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpRequest, HttpResponse } from "./types";

export const MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function toHeaders(req: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) {
      try {
        h.append(k, item);
      } catch {
        // a header value the Fetch API refuses is dropped rather than crashing the request
      }
    }
  }
  return h;
}

/** Adapts Node's http server to the pipeline: the exact body bytes and the socket's peer address. */
export function nodeHandler(handle: (req: HttpRequest) => Promise<HttpResponse>) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    let out: HttpResponse;
    try {
      const url = new URL(req.url ?? "/", "http://internal");
      const body = await readBody(req);
      out = await handle({
        method: (req.method ?? "GET").toUpperCase(),
        path: (req.url ?? "/").split("?")[0]!,
        query: url.searchParams,
        rawQuery: (req.url ?? "").includes("?") ? (req.url ?? "").slice((req.url ?? "").indexOf("?") + 1) : "",
        headers: toHeaders(req),
        body,
        peerIp: req.socket.remoteAddress ?? "0.0.0.0",
      });
    } catch (err) {
      const correlationId = randomUUID();
      const tooLarge = err instanceof BodyTooLarge;
      out = {
        status: tooLarge ? 413 : 400,
        headers: { "content-type": "application/json; charset=utf-8", "x-correlation-id": correlationId },
        body: JSON.stringify({
          error: tooLarge
            ? { code: "PAYLOAD_TOO_LARGE", message: `The request body exceeds ${MAX_BODY_BYTES} bytes.`, correlationId }
            : { code: "VALIDATION_ERROR", message: "The request could not be read.", correlationId },
        }),
      };
    }
    res.writeHead(out.status, out.headers);
    res.end(req.method === "HEAD" ? undefined : out.body);
  };
}
