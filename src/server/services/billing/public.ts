import type { Logger } from "pino";
import { randomToken } from "../../crypto/hash";
import type { Db } from "../../db/client";
import { AppError, rateLimited } from "../../errors";
import { normalizeEmail } from "../../platform/contact-address";
import { hitWindow } from "../../platform/rate-limit";
import { isDisposableEmail } from "../aml";

/** What a public (unauthenticated) billing call knows about its caller. */
export type PublicContext = { db: Db; clientIp: string; correlationId: string; log: Logger; now: () => Date };

export const BILLING = {
  /** docs/api/contract-decisions.md §4: OTP, checkout, reveal, advise (and settlement) share 10 per minute per client IP. */
  callsPerMinutePerIp: 10,
  /** Status polls and chain confirms are retried by design (425 says "retry shortly"), so they get their own budget. */
  pollsPerMinutePerIp: 60,
  /** An unpaid checkout shows as expired after a day (a late payment still provisions). */
  checkoutTtlSec: 24 * 60 * 60,
  /** A signup's key is revealed with the session id alone only this long after settlement (docs/security.md, "Checkout keys without the email proof"). */
  revealWindowSec: 15 * 60,
  /** Reveal attempts one checkout session takes per hour, whoever sends them. */
  revealsPerSessionHour: 5,
} as const;

/**
 * A new checkout session id: 192 random bits, the one secret a buyer holds when they reveal their
 * key without the email proof. It never goes on chain (the memo is a separate value) and never
 * into our logs (routes log their template, not the path).
 */
export const newCheckoutId = () => `cs_${randomToken(24)}`;

/** Counts one public billing call for the client address; the 11th in a minute is 429 with Retry-After. */
export async function limitPublicCall(pub: PublicContext, kind: "call" | "poll" = "call"): Promise<void> {
  const limit = kind === "call" ? BILLING.callsPerMinutePerIp : BILLING.pollsPerMinutePerIp;
  const hit = await hitWindow(pub.db, `billing-${kind}:ip:${pub.clientIp}`, limit, 60, pub.now());
  if (hit.exceeded) throw rateLimited(hit.resetSec, "Too many billing requests from this address; retry after the window resets.");
}

/** Consumer mailboxes: a signup names the organization's work address, which becomes its contact. */
const CONSUMER_DOMAINS = new Set([
  "gmail.com",
  "googlemail.com",
  "yahoo.com",
  "ymail.com",
  "hotmail.com",
  "outlook.com",
  "live.com",
  "msn.com",
  "aol.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "proton.me",
  "protonmail.com",
  "gmx.com",
  "gmx.net",
  "mail.com",
  "yandex.com",
  "yandex.ru",
  "zoho.com",
  "qq.com",
  "163.com",
]);

/** Lower-cased work address, or 400 naming the field (never the address). */
export function workEmail(raw: string): string {
  const email = normalizeEmail(raw);
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (isDisposableEmail(email) || CONSUMER_DOMAINS.has(domain)) {
    throw new AppError("VALIDATION_ERROR", "Use a work email address: disposable and consumer mailboxes are not accepted for signup.", {
      reason: "work_email_required",
      issues: [{ path: "body.email", message: "must be a work email address" }],
    });
  }
  return email;
}
