import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeSmsGateway, startFakeSmsGateway } from "../../testing/fake-sms-gateway";
import { appErrorOf } from "../../testing/rejection";
import { type TwilioOptions, twilioSms } from "./twilio";

let gw: FakeSmsGateway;
const FROM = "+15005550006";

beforeAll(async () => {
  gw = await startFakeSmsGateway();
});
afterAll(async () => {
  await gw.close();
});
beforeEach(() => {
  gw.setMode("ok");
  gw.messages.length = 0;
  gw.requests.length = 0;
});

const adapter = (over: Partial<TwilioOptions> = {}) =>
  twilioSms({ apiUrl: gw.url, accountSid: gw.accountSid, authToken: gw.authToken, from: FROM, timeoutMs: 3000, ...over });

describe("twilioSms against the fake Twilio gateway", () => {
  it("posts the form to the account's Messages resource with Basic auth and returns the sid", async () => {
    const out = await adapter().sendSms({ to: "+233241234567", text: "Your code is 123456" });

    expect(out.provider).toBe("twilio");
    expect(out.id).toMatch(/^SM[0-9a-f]{32}$/);
    const [req] = gw.requests;
    expect(req).toMatchObject({
      method: "POST",
      path: `/2010-04-01/Accounts/${gw.accountSid}/Messages.json`,
      authorization: `Basic ${Buffer.from(`${gw.accountSid}:${gw.authToken}`).toString("base64")}`,
      contentType: "application/x-www-form-urlencoded",
      form: { To: "+233241234567", From: FROM, Body: "Your code is 123456" },
      status: 201,
    });
    expect(gw.messages).toEqual([
      { sid: out.id, to: "+233241234567", from: FROM, messagingServiceSid: undefined, body: "Your code is 123456" },
    ]);
  });

  it("sends MessagingServiceSid instead of From when one is configured", async () => {
    const mg = `MG${"ab".repeat(16)}`;
    await adapter({ from: undefined, messagingServiceSid: mg }).sendSms({ to: "+233241234567", text: "Hi" });
    expect(gw.requests[0]?.form).toEqual({ To: "+233241234567", Body: "Hi", MessagingServiceSid: mg });
    expect(gw.messages[0]?.messagingServiceSid).toBe(mg);
  });

  it("maps Twilio's 400 (21211 invalid To) to PROVIDER_FAILURE without the number or body", async () => {
    gw.setMode("invalid_to");
    const err = await appErrorOf(adapter().sendSms({ to: "+233241234567", text: "code 998877" }));

    expect(gw.requests[0]?.status).toBe(400);
    expect(err.code).toBe("PROVIDER_FAILURE");
    expect(err.status).toBe(502);
    expect(err.message).toBe("The phone number is not valid for SMS.");
    expect(err.details).toEqual({ provider: "twilio", httpStatus: 400, providerCode: 21211 });
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toMatch(/241234567|998877/);
    expect(gw.messages).toHaveLength(0);
  });

  it("maps 503 to PROVIDER_UNAVAILABLE", async () => {
    gw.setMode("unavailable");
    const err = await appErrorOf(adapter().sendSms({ to: "+233241234567", text: "x" }));
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.status).toBe(503);
    expect(err.details).toMatchObject({ provider: "twilio", reason: "server_error" });
  });

  it("maps 429 to PROVIDER_UNAVAILABLE carrying Retry-After", async () => {
    gw.setMode("rate_limited");
    const err = await appErrorOf(adapter().sendSms({ to: "+233241234567", text: "x" }));
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.details).toMatchObject({ reason: "rate_limited", retryAfterSec: 7 });
    expect(err.headers).toEqual({ "Retry-After": "7" });
  });

  it("maps a wrong auth token (401, 20003) to PROVIDER_FAILURE", async () => {
    const err = await appErrorOf(adapter({ authToken: "not-the-token" }).sendSms({ to: "+233241234567", text: "x" }));
    expect(gw.requests[0]?.status).toBe(401);
    expect(err.code).toBe("PROVIDER_FAILURE");
    expect(err.details).toMatchObject({ httpStatus: 401, providerCode: 20003 });
    expect(err.message).not.toContain("not-the-token");
  });

  it("maps a gateway that never answers to PROVIDER_UNAVAILABLE after the timeout", async () => {
    gw.setMode("hang");
    const started = Date.now();
    const err = await appErrorOf(adapter({ timeoutMs: 300 }).sendSms({ to: "+233241234567", text: "x" }));
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.details).toMatchObject({ reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(gw.requests).toHaveLength(1);
  });

  it("maps nothing listening to PROVIDER_UNAVAILABLE", async () => {
    const err = await appErrorOf(adapter({ apiUrl: "http://127.0.0.1:1" }).sendSms({ to: "+233241234567", text: "x" }));
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.details).toMatchObject({ reason: "unreachable" });
  });
});
