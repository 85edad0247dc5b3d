import { z } from "zod";
import type { DbOrTx } from "../../db/client";
import { AppError, validationError } from "../../errors";
import { logger } from "../../log";
import { type MessagingConfig, messagingConfig } from "./config";
import { outboxEmail, outboxSms } from "./dev-outbox";
import { smtpEmail } from "./smtp";
import { twilioSms } from "./twilio";
import type { EmailChannel, Messaging, SmsChannel } from "./types";

export { type MessagingConfig, messagingConfig } from "./config";
export type { Messaging } from "./types";

const EmailInput = z.object({
  to: z.email(),
  subject: z.string().min(1).max(998),
  text: z.string().min(1),
  html: z.string().min(1).optional(),
  orgId: z.uuid().nullish(),
});
const SmsInput = z.object({
  to: z.string().regex(/^\+[1-9]\d{6,14}$/, "must be an E.164 number"),
  text: z.string().min(1).max(1600),
  orgId: z.uuid().nullish(),
});

/** A provider that production requires but nobody configured: fail the send, loudly. */
const missing = (channel: "email" | "sms", vars: string) => {
  const fail = async (): Promise<never> => {
    logger().error({ provider: "none", channel }, `${channel} provider is not configured in production (set ${vars})`);
    throw new AppError("PROVIDER_UNAVAILABLE", `${channel === "email" ? "Email" : "SMS"} delivery is not configured on this deployment.`, {
      provider: "none",
      reason: "not_configured",
    });
  };
  return { sendEmail: fail, sendSms: fail };
};

function emailChannel(db: DbOrTx, cfg: MessagingConfig): EmailChannel {
  switch (cfg.email.kind) {
    case "smtp":
      return smtpEmail({ url: cfg.email.url, from: cfg.email.from, timeoutMs: cfg.timeoutMs });
    case "outbox":
      return outboxEmail(db);
    case "missing":
      return missing("email", "SMTP_URL and EMAIL_FROM");
  }
}

function smsChannel(db: DbOrTx, cfg: MessagingConfig): SmsChannel {
  switch (cfg.sms.kind) {
    case "twilio":
      return twilioSms({ ...cfg.sms, timeoutMs: cfg.timeoutMs });
    case "outbox":
      return outboxSms(db);
    case "missing":
      return missing("sms", "SMS_PROVIDER=twilio with TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM");
  }
}

let cachedConfig: MessagingConfig | undefined;
const defaultConfig = () => (cachedConfig ??= messagingConfig());

/**
 * The messaging of this process: per channel, the configured provider, else (outside
 * production) the dev outbox. Messages are checked before any provider sees them, so a comma
 * list or a header break can never widen who receives an email.
 */
export function messaging(db: DbOrTx, config: MessagingConfig = defaultConfig()): Messaging {
  const email = emailChannel(db, config);
  const sms = smsChannel(db, config);
  return {
    async sendEmail(msg) {
      const parsed = EmailInput.safeParse(msg);
      if (!parsed.success) throw validationError(parsed.error.issues, "email");
      return email.sendEmail(parsed.data);
    },
    async sendSms(msg) {
      const parsed = SmsInput.safeParse(msg);
      if (!parsed.success) throw validationError(parsed.error.issues, "sms");
      return sms.sendSms(parsed.data);
    },
  };
}

/** Which provider serves each channel; for start-up logs and readiness, never secrets. */
export function describeMessaging(config: MessagingConfig = defaultConfig()) {
  const name = { smtp: "smtp", twilio: "twilio", outbox: "dev-outbox", missing: "missing" } as const;
  return { email: name[config.email.kind], sms: name[config.sms.kind] };
}

/**
 * For start-up: throws when the settings are invalid, or when production lacks a provider
 * (production never falls back to the dev outbox).
 */
export function assertMessagingConfigured(config: MessagingConfig = messagingConfig()): void {
  const missingVars: string[] = [];
  if (config.email.kind === "missing") missingVars.push("  SMTP_URL and EMAIL_FROM: are required in production (email)");
  if (config.sms.kind === "missing")
    missingVars.push("  SMS_PROVIDER=twilio, TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM: are required in production (SMS)");
  if (missingVars.length) throw new Error(`Invalid messaging configuration:\n${missingVars.join("\n")}`);
}
