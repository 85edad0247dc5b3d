import { z } from "zod";
import { env } from "@/env";

/**
 * Provider settings of the messaging adapters, read from the environment here rather than in
 * src/env.ts so the adapters stay one folder. Values are never echoed in errors: SMTP_URL and
 * TWILIO_AUTH_TOKEN carry credentials.
 */
export type EmailConfig = { kind: "smtp"; url: string; from: string } | { kind: "outbox" } | { kind: "missing" };

export type SmsConfig =
  | { kind: "twilio"; apiUrl: string; accountSid: string; authToken: string; from?: string; messagingServiceSid?: string }
  | { kind: "outbox" }
  | { kind: "missing" };

export type MessagingConfig = { environment: "sandbox" | "production"; timeoutMs: number; email: EmailConfig; sms: SmsConfig };

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const EMAIL_FROM = /^(?:[^<>]*<([^<>\s]+)>|([^<>\s]+))$/;

const Schema = z.object({
  SMTP_URL: optional,
  EMAIL_FROM: optional,
  SMS_PROVIDER: optional.pipe(z.enum(["twilio", "outbox"]).optional()),
  TWILIO_ACCOUNT_SID: optional,
  TWILIO_AUTH_TOKEN: optional,
  TWILIO_FROM: optional,
  TWILIO_MESSAGING_SERVICE_SID: optional,
  SMS_API_URL: optional,
  MESSAGING_TIMEOUT_MS: optional.pipe(
    z.string().regex(/^\d+$/, "must be a whole number of milliseconds").transform(Number).pipe(z.int().min(100).max(120_000)).optional(),
  ),
});

type Issues = string[];

function smtpUrlProblem(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== "smtp:" && u.protocol !== "smtps:") return "must start with smtp:// or smtps://";
    return u.hostname ? null : "must name a host";
  } catch {
    return "is not a URL";
  }
}

function emailConfig(e: z.output<typeof Schema>, production: boolean, issues: Issues): EmailConfig {
  if (!e.SMTP_URL) {
    if (e.EMAIL_FROM) issues.push("SMTP_URL: is required when EMAIL_FROM is set");
    return production ? { kind: "missing" } : { kind: "outbox" };
  }
  const problem = smtpUrlProblem(e.SMTP_URL);
  if (problem) issues.push(`SMTP_URL: ${problem}`);
  const fromMatch = e.EMAIL_FROM?.match(EMAIL_FROM);
  const fromAddress = fromMatch?.[1] ?? fromMatch?.[2];
  if (!e.EMAIL_FROM) issues.push('EMAIL_FROM: is required when SMTP_URL is set (e.g. "Bind Identity <no-reply@example.com>")');
  else if (!fromAddress || !z.email().safeParse(fromAddress).success) issues.push('EMAIL_FROM: must be an address or "Name <address>"');
  return { kind: "smtp", url: e.SMTP_URL, from: e.EMAIL_FROM ?? "" };
}

function smsConfig(e: z.output<typeof Schema>, production: boolean, issues: Issues): SmsConfig {
  const provider = e.SMS_PROVIDER ?? (e.TWILIO_ACCOUNT_SID ? "twilio" : undefined);
  if (provider === "outbox") {
    if (production) issues.push("SMS_PROVIDER: outbox is refused when BI_ENV=production");
    return { kind: "outbox" };
  }
  if (provider !== "twilio") return production ? { kind: "missing" } : { kind: "outbox" };
  if (!e.TWILIO_ACCOUNT_SID) issues.push("TWILIO_ACCOUNT_SID: is required when SMS_PROVIDER=twilio");
  // The SID goes into the request path, so it must be exactly Twilio's shape.
  else if (!/^AC[0-9a-fA-F]{32}$/.test(e.TWILIO_ACCOUNT_SID)) issues.push("TWILIO_ACCOUNT_SID: must be AC followed by 32 hex digits");
  if (!e.TWILIO_AUTH_TOKEN) issues.push("TWILIO_AUTH_TOKEN: is required when SMS_PROVIDER=twilio");
  if (!e.TWILIO_FROM && !e.TWILIO_MESSAGING_SERVICE_SID)
    issues.push("TWILIO_FROM: TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID is required when SMS_PROVIDER=twilio");
  if (e.TWILIO_FROM && !/^(\+[1-9]\d{6,14}|[A-Za-z0-9 ]{1,11})$/.test(e.TWILIO_FROM))
    issues.push("TWILIO_FROM: must be an E.164 number or an alphanumeric sender id of up to 11 characters");
  if (e.TWILIO_MESSAGING_SERVICE_SID && !/^MG[0-9a-fA-F]{32}$/.test(e.TWILIO_MESSAGING_SERVICE_SID))
    issues.push("TWILIO_MESSAGING_SERVICE_SID: must be MG followed by 32 hex digits");
  const apiUrl = e.SMS_API_URL ?? "https://api.twilio.com";
  if (!z.url({ protocol: /^https?$/ }).safeParse(apiUrl).success) issues.push("SMS_API_URL: must be an http(s) URL");
  else if (production && !apiUrl.startsWith("https:")) issues.push("SMS_API_URL: must be https when BI_ENV=production");
  return {
    kind: "twilio",
    apiUrl: apiUrl.replace(/\/+$/, ""),
    accountSid: e.TWILIO_ACCOUNT_SID ?? "",
    authToken: e.TWILIO_AUTH_TOKEN ?? "",
    from: e.TWILIO_FROM,
    messagingServiceSid: e.TWILIO_MESSAGING_SERVICE_SID,
  };
}

/** Parses the messaging settings; throws one error naming every bad variable (never its value). */
export function messagingConfig(
  source: Record<string, string | undefined> = process.env,
  environment: "sandbox" | "production" = env().BI_ENV,
): MessagingConfig {
  const parsed = Schema.safeParse(source);
  const issues: Issues = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  if (!parsed.success) throw invalid(issues);
  const production = environment === "production";
  const email = emailConfig(parsed.data, production, issues);
  const sms = smsConfig(parsed.data, production, issues);
  if (issues.length) throw invalid(issues);
  return { environment, timeoutMs: parsed.data.MESSAGING_TIMEOUT_MS ?? 10_000, email, sms };
}

const invalid = (issues: Issues) => new Error(`Invalid messaging configuration:\n${issues.map((i) => `  ${i}`).join("\n")}`);
