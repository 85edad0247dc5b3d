import { TRPCError } from "@trpc/server";
import { AppError } from "../errors";
import { UPLOAD_MAX_BYTES } from "../services/screening";

/**
 * The largest request body a console procedure takes: an organization's screening list upload at
 * its advertised size (UPLOAD_MAX_BYTES, all files together) sent as base64, 4 bytes for every 3
 * and up to two files each padded to a whole group, with 64 KiB for the JSON around it (names,
 * list, format, the superjson wrapper). Next's proxy must buffer at least this much
 * (`experimental.proxyClientMaxBodySize` in next.config.mjs): it passes on only the first bytes of
 * a larger body, which would then read as broken JSON instead of as too large.
 */
export const CONSOLE_MAX_BODY_BYTES = 4 * Math.ceil(UPLOAD_MAX_BYTES / 3) + 8 + 64 * 1024;

function tooLarge(maxBytes: number): TRPCError {
  const message = `The request body is larger than ${maxBytes} bytes.`;
  // The AppError as cause: the console's error formatter (api/trpc.ts) adds its code and details,
  // like any other AppError, and tRPC answers 413 (errors.ts maps PAYLOAD_TOO_LARGE to it).
  return new TRPCError({ code: "PAYLOAD_TOO_LARGE", message, cause: new AppError("PAYLOAD_TOO_LARGE", message, { maxBytes }) });
}

/**
 * The console's request with its body capped at `maxBytes`: a body that declares more
 * (Content-Length) or turns out longer fails to read with PAYLOAD_TOO_LARGE, which the procedure
 * answers as 413 in the console's error envelope; nothing past the cap is read into memory.
 */
export function limitConsoleBody(req: Request, maxBytes = CONSOLE_MAX_BODY_BYTES): Request {
  if (!req.body) return req;
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  const reader = req.body.getReader();
  let seen = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (declared > maxBytes) {
        controller.error(tooLarge(maxBytes));
        reader.cancel().catch(() => undefined);
      }
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += value.byteLength;
      if (seen > maxBytes) {
        controller.error(tooLarge(maxBytes));
        await reader.cancel().catch(() => undefined);
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Request(req.url, { method: req.method, headers: req.headers, body, signal: req.signal, duplex: "half" } as RequestInit);
}
