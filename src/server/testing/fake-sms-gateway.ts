import crypto from "node:crypto";
import { startFakeServer } from "./fake-http";

/** One message the gateway accepted, as Twilio would have queued it. */
export type FakeSms = { sid: string; to: string; from?: string; messagingServiceSid?: string; body: string };

/** Every request, accepted or not, for assertions on what the adapter sent. */
export type FakeSmsRequest = {
  method: string;
  path: string;
  authorization?: string;
  contentType?: string;
  form: Record<string, string>;
  status: number;
};

/** "ok" answers normally; the others answer every following request that way until changed. */
export type FakeSmsMode = "ok" | "invalid_to" | "unavailable" | "rate_limited" | "hang";

export type FakeSmsGateway = {
  url: string;
  accountSid: string;
  authToken: string;
  messages: FakeSms[];
  requests: FakeSmsRequest[];
  setMode(mode: FakeSmsMode): void;
  close(): Promise<void>;
};

const hex = (bytes: number) => crypto.randomBytes(bytes).toString("hex");
const E164 = /^\+[1-9]\d{6,14}$/;

const twilioError = (status: number, code: number, message: string) => ({
  status,
  json: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
});

/**
 * A local stand-in for Twilio's Programmable Messaging API (POST
 * /2010-04-01/Accounts/{AccountSid}/Messages.json): checks Basic auth, the path's account and
 * the form fields the way Twilio does, and answers with Twilio's shapes and error codes.
 */
export async function startFakeSmsGateway(opts: { accountSid?: string; authToken?: string } = {}): Promise<FakeSmsGateway> {
  const accountSid = opts.accountSid ?? `AC${hex(16)}`;
  const authToken = opts.authToken ?? hex(16);
  const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
  const messages: FakeSms[] = [];
  const requests: FakeSmsRequest[] = [];
  let mode: FakeSmsMode = "ok";

  function answer(method: string, path: string, auth: string | undefined, form: Record<string, string>) {
    if (auth !== expectedAuth) return twilioError(401, 20003, "Authenticate");
    const m = path.match(/^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/);
    if (!m || m[1] !== accountSid) return twilioError(404, 20404, "The requested resource was not found");
    if (method !== "POST") return twilioError(405, 20004, "Method not allowed");
    if (mode === "unavailable") return twilioError(503, 20500, "Service unavailable");
    if (mode === "rate_limited") return twilioError(429, 20429, "Too Many Requests");
    if (mode === "invalid_to" || !form.To || !E164.test(form.To))
      return twilioError(400, 21211, `The 'To' number ${form.To ?? ""} is not a valid phone number.`);
    if (!form.Body) return twilioError(400, 21602, "Message body is required.");
    if (!form.From && !form.MessagingServiceSid) return twilioError(400, 21603, "A 'From' phone number is required.");
    const sent: FakeSms = {
      sid: `SM${hex(16)}`,
      to: form.To,
      from: form.From,
      messagingServiceSid: form.MessagingServiceSid,
      body: form.Body,
    };
    messages.push(sent);
    return {
      status: 201,
      json: {
        sid: sent.sid,
        account_sid: accountSid,
        to: sent.to,
        from: sent.from ?? null,
        messaging_service_sid: sent.messagingServiceSid ?? null,
        body: sent.body,
        status: "queued",
        num_segments: "1",
        direction: "outbound-api",
        date_created: new Date().toUTCString(),
        uri: `/2010-04-01/Accounts/${accountSid}/Messages/${sent.sid}.json`,
      },
    };
  }

  const server = await startFakeServer((r) => {
    const isForm = (r.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded");
    const form = isForm ? Object.fromEntries(new URLSearchParams(r.raw)) : {};
    const path = r.path.split("?")[0] ?? "/";
    const { method, headers } = r;
    const record = (status: number) =>
      requests.push({ method, path, authorization: headers.authorization, contentType: headers["content-type"], form, status });
    // A gateway that accepted the connection and never answers: the adapter's timeout must end it.
    if (mode === "hang" && headers.authorization === expectedAuth) {
      record(0);
      return null;
    }
    const out = answer(method, path, headers.authorization, form);
    record(out.status);
    return out.status === 429 ? { ...out, headers: { "retry-after": "7" } } : out;
  });

  return {
    url: server.url,
    accountSid,
    authToken,
    messages,
    requests,
    setMode: (m) => void (mode = m),
    close: server.close,
  };
}
