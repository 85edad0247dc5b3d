import { AppError } from "../../errors";
import { logger } from "../../log";
import type { Sent, SmsChannel } from "./types";

export type TwilioOptions = {
  apiUrl: string;
  accountSid: string;
  authToken: string;
  from?: string;
  messagingServiceSid?: string;
  timeoutMs: number;
};

type TwilioError = { code?: number; message?: string; status?: number };

// Twilio's own messages quote the number ("The 'To' number +233… is not valid"): we answer with
// our own sentence per documented code and pass on only the numeric code.
const KNOWN_CODES: Record<number, string> = {
  20003: "The SMS provider refused our credentials.",
  21211: "The phone number is not valid for SMS.",
  21408: "SMS to this region is not enabled.",
  21610: "The recipient has opted out of SMS from this sender.",
  21612: "The SMS provider cannot route a message to this number.",
  21614: "The phone number cannot receive SMS.",
};

const failure = (status: number, body: TwilioError | null) => {
  const providerCode = typeof body?.code === "number" ? body.code : undefined;
  const message = (providerCode ? KNOWN_CODES[providerCode] : undefined) ?? "The SMS provider rejected the message.";
  return new AppError("PROVIDER_FAILURE", message, { provider: "twilio", httpStatus: status, ...(providerCode ? { providerCode } : {}) });
};

const unavailable = (reason: string, retryAfterSec?: number) =>
  new AppError(
    "PROVIDER_UNAVAILABLE",
    "The SMS provider is unavailable; retry later.",
    { provider: "twilio", reason, ...(retryAfterSec ? { retryAfterSec } : {}) },
    retryAfterSec ? { "Retry-After": String(retryAfterSec) } : undefined,
  );

const retryAfter = (res: Response): number | undefined => {
  const n = Number(res.headers.get("retry-after"));
  return Number.isInteger(n) && n > 0 && n <= 3600 ? n : undefined;
};

/** SMS through Twilio's Programmable Messaging API (POST …/Accounts/{sid}/Messages.json). */
export function twilioSms(opts: TwilioOptions): SmsChannel {
  const url = `${opts.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(opts.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString("base64")}`;

  async function post(form: URLSearchParams): Promise<{ res: Response; body: unknown }> {
    const signal = AbortSignal.timeout(opts.timeoutMs);
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: form.toString(),
        signal,
        redirect: "error",
      });
      const text = await res.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      return { res, body };
    } catch {
      throw unavailable(signal.aborted ? "timeout" : "unreachable");
    }
  }

  return {
    async sendSms(msg) {
      const form = new URLSearchParams({ To: msg.to, Body: msg.text });
      if (opts.messagingServiceSid) form.set("MessagingServiceSid", opts.messagingServiceSid);
      else if (opts.from) form.set("From", opts.from);
      const outcome = await post(form).then(classify, (err: unknown) => {
        if (err instanceof AppError) return err;
        throw err;
      });
      if (!(outcome instanceof AppError)) return outcome;
      logger().warn({ provider: "twilio", orgId: msg.orgId ?? null, details: outcome.details, mapped: outcome.code }, "sms send failed");
      throw outcome;
    },
  };
}

/** 2xx with a sid is sent; 5xx and 429 are worth retrying; any other answer is a refusal. */
function classify({ res, body }: { res: Response; body: unknown }): Sent | AppError {
  const sid = (body as { sid?: unknown } | null)?.sid;
  if (res.ok && typeof sid === "string" && sid) return { id: sid, provider: "twilio" };
  if (res.ok) return failure(res.status, null);
  if (res.status === 429) return unavailable("rate_limited", retryAfter(res));
  if (res.status >= 500) return unavailable("server_error", retryAfter(res));
  return failure(res.status, body as TwilioError | null);
}
