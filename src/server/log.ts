import pino from "pino";
import { env } from "@/env";

/**
 * Structured JSON logs. Anything that could carry a secret or personal data is redacted by key,
 * wherever it sits, so a careless `log.info({ body })` cannot leak an API key, code or address.
 */
const SENSITIVE_KEYS = [
  "authorization",
  "apiKey",
  "apikey",
  "key",
  "secret",
  "signingSecret",
  "password",
  "consolePassword",
  "code",
  "devCode",
  "token",
  "emailProofToken",
  "phoneProofToken",
  "kycCreateToken",
  "accessToken",
  "email",
  "phone",
  "address",
  "to",
  "signature",
  "x-bi-signature",
  "cookie",
  "set-cookie",
  "ownerPublicKey",
  "activePublicKey",
  "deviceFingerprint",
  "body",
  "payloadToSign",
];

const paths = SENSITIVE_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`, `*.*.*.${k}`]);

const g = globalThis as unknown as {
  __biLog?: pino.Logger;
  __biAccessLog?: pino.Logger;
  __biLogDest?: ReturnType<typeof pino.destination>;
};

/** A logger with the service's redaction rules; `destination` lets tests read what would be written. */
export function createLogger(
  level: pino.LevelWithSilent,
  destination?: pino.DestinationStream,
  opts: { redact?: boolean } = {},
): pino.Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "bind-identity", env: env().BI_ENV },
    ...(opts.redact === false ? {} : { redact: { paths, censor: "[redacted]" } }),
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Standard output through pino's asynchronous destination (docs/performance.md): a line is queued and
 * written by the event loop in batches, not by one write(2) per line on the request's path.
 * minLength 0 keeps a quiet server's lines immediate; shutdown calls `flushLogs` (and pino's own
 * exit hook flushes too), so a normal exit loses nothing.
 */
export function logger(): pino.Logger {
  if (!g.__biLog) {
    const level = process.env.VITEST && !process.env.LOG_LEVEL ? "silent" : env().LOG_LEVEL;
    g.__biLogDest = pino.destination({ dest: 1, sync: false, minLength: 0 });
    g.__biLog = createLogger(level, g.__biLogDest);
  }
  return g.__biLog;
}

/**
 * The access log: one line per request of a fixed shape (method, route template, status,
 * duration, organization id, client IP, correlation id), never anything from the request's
 * headers or body. It skips the redaction pass, which with our wildcard paths costs about 25
 * times the line itself (the main cost of LOG_LEVEL=info, docs/performance.md). Same level and destination.
 */
export function accessLogger(): pino.Logger {
  if (!g.__biAccessLog) {
    const main = logger();
    g.__biAccessLog = createLogger(main.level as pino.LevelWithSilent, g.__biLogDest, { redact: false });
  }
  return g.__biAccessLog;
}

/** Writes out every queued line, synchronously: call before the process exits. */
export function flushLogs(): void {
  const dest = g.__biLogDest;
  if (!dest) return;
  try {
    dest.flushSync();
  } catch {
    // nothing queued yet, or stdout already closed: nothing more can be written
  }
}

/** A child logger carrying the request's correlation id. */
export const requestLogger = (correlationId: string) => logger().child({ correlationId });
