import nodemailer from "nodemailer";
import SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import { AppError } from "../../errors";
import { logger } from "../../log";
import type { EmailChannel } from "./types";

export type SmtpOptions = { url: string; from: string; timeoutMs: number };

const NETWORK_CODES = new Set([
  "ECONNECTION",
  "ETIMEDOUT",
  "ESOCKET",
  "EDNS",
  "ETLS",
  "EPROTOCOL",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

type SmtpErrorShape = { code?: string; responseCode?: number; command?: string };

/**
 * Maps a nodemailer error to our codes. The server's own text is dropped on purpose: SMTP
 * replies routinely quote the recipient ("550 <bob@…> unknown"), and errors must not.
 */
export function mapSmtpError(err: unknown): AppError {
  const { code, responseCode } = (err ?? {}) as SmtpErrorShape;
  const details = (reason: string) => ({ provider: "smtp", reason, ...(responseCode ? { smtpCode: responseCode } : {}) });
  if (responseCode && responseCode >= 400 && responseCode < 500)
    return new AppError("PROVIDER_UNAVAILABLE", "The email server deferred the message; retry later.", details("deferred"));
  if (code === "EAUTH") return new AppError("PROVIDER_FAILURE", "The email server refused our credentials.", details("auth_failed"));
  if (code === "EENVELOPE" && responseCode && responseCode >= 500)
    return new AppError("PROVIDER_FAILURE", "The email server rejected the recipient.", details("recipient_rejected"));
  if (responseCode && responseCode >= 500)
    return new AppError("PROVIDER_FAILURE", "The email server rejected the message.", details("message_rejected"));
  if (code && NETWORK_CODES.has(code))
    return new AppError("PROVIDER_UNAVAILABLE", "The email server could not be reached; retry later.", details("unreachable"));
  return new AppError("PROVIDER_FAILURE", "The email could not be sent.", details("unexpected"));
}

/** Email over SMTP (smtp:// with STARTTLS when offered, or smtps://), one connection per message. */
export function smtpEmail(opts: SmtpOptions): EmailChannel {
  const options: SMTPTransport.Options = {
    url: opts.url,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
    dnsTimeout: opts.timeoutMs,
    logger: false,
    debug: false,
  };
  // createTransport({url, ...}) would drop every option beside the URL; the transport's own
  // constructor merges them (query parameters of SMTP_URL still win).
  const transport = nodemailer.createTransport(new SMTPTransport(options));

  return {
    async sendEmail(msg) {
      try {
        const info = await transport.sendMail({
          from: opts.from,
          to: msg.to,
          subject: msg.subject,
          text: msg.text,
          ...(msg.html ? { html: msg.html } : {}),
        });
        return { id: String(info.messageId ?? ""), provider: "smtp" };
      } catch (err) {
        const mapped = mapSmtpError(err);
        const { code, responseCode, command } = (err ?? {}) as SmtpErrorShape;
        logger().warn(
          { provider: "smtp", orgId: msg.orgId ?? null, errCode: code, smtpCode: responseCode, command, mapped: mapped.code },
          "email send failed",
        );
        throw mapped;
      }
    },
  };
}
