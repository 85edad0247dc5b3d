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

export function logger(): pino.Logger {
  g.__biLog ??= pino({
    level: process.env.VITEST && !process.env.LOG_LEVEL ? "silent" : env().LOG_LEVEL,
    base: { service: "bind-identity", env: env().BI_ENV },
    redact: { paths, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
  return g.__biLog;
}

/** A child logger carrying the request's correlation id. */
export const requestLogger = (correlationId: string) => logger().child({ correlationId });
