import pino from "pino";
import { env } from "@/env";

/**
 * Structured JSON logs. Anything that could carry a secret or personal data is redacted by key,
 * wherever it sits, so a careless `log.info({ body })` cannot leak an API key, code or address.
 */
const SENSITIVE_KEYS = [
  "authorization", "apiKey", "apikey", "key", "secret", "signingSecret", "password", "consolePassword",
  "code", "devCode", "token", "emailProofToken", "phoneProofToken", "kycCreateToken", "accessToken",
  "email", "phone", "address", "to", "signature", "x-bi-signature", "cookie", "set-cookie",
  "ownerPublicKey", "activePublicKey", "deviceFingerprint", "body", "payloadToSign",
];

const paths = SENSITIVE_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`, `*.*.*.${k}`]);

const g = globalThis as unknown as { __biLog?: pino.Logger };

/** A logger with the service's redaction rules; `destination` lets tests read what would be written. */
export function createLogger(level: pino.LevelWithSilent, destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "bind-identity", env: env().BI_ENV },
    redact: { paths, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

export function logger(): pino.Logger {
  g.__biLog ??= createLogger(process.env.VITEST && !process.env.LOG_LEVEL ? "silent" : env().LOG_LEVEL);
  return g.__biLog;
}

/** A child logger carrying the request's correlation id. */
export const requestLogger = (correlationId: string) => logger().child({ correlationId });
