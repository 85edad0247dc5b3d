import { randomUUID } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { ERRORS, type ErrorCode } from "../errors";
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

/** What Node's parser refused, as the status and code of the envelope (Node's own defaults, named). */
function parserRefusal(code: string | undefined): ErrorCode {
  if (code === "HPE_HEADER_OVERFLOW") return "HEADERS_TOO_LARGE";
  if (code === "HPE_CHUNK_EXTENSIONS_OVERFLOW") return "PAYLOAD_TOO_LARGE";
  return "VALIDATION_ERROR";
}

/**
 * A request Node's HTTP parser refuses before any handler runs (a request line and headers over
 * its 16 KiB limit, broken framing) is answered in the error envelope too, where Node alone
 * would answer a bare 431 or 400 with no body; the connection is then closed, as Node does.
 */
export function answerParserRefusals(server: Server): Server {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node does: a socket already answering a request (its headers sent) cannot take another answer.
    const answering = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage?.headersSent;
    if (err.code === "ECONNRESET" || !socket.writable || answering) return void socket.destroy();
    if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") return void socket.end("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n");
    const code = parserRefusal(err.code);
    const { status, message } = ERRORS[code];
    const correlationId = randomUUID();
    const body = JSON.stringify({ error: { code, message, correlationId } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Correlation-Id: ${correlationId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
