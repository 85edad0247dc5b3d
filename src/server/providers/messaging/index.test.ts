import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../db/client";
import { AppError } from "../../errors";
import { type FakeSmsGateway, startFakeSmsGateway } from "../../testing/fake-sms-gateway";
import { startTestSmtpServer, type TestSmtpServer } from "../../testing/smtp-test-server";
import { assertMessagingConfigured, describeMessaging, messaging, messagingConfig } from "./index";

let smtp: TestSmtpServer;
let gw: FakeSmsGateway;
const tag = () => crypto.randomBytes(4).toString("hex");
const phone = () => `+23320${crypto.randomInt(1_000_000, 9_999_999)}`;

beforeAll(async () => {
  [smtp, gw] = await Promise.all([startTestSmtpServer(), startFakeSmsGateway()]);
});
afterAll(async () => {
  await Promise.all([smtp.close(), gw.close()]);
});

const twilioEnv = () => ({
  SMS_PROVIDER: "twilio",
  TWILIO_ACCOUNT_SID: gw.accountSid,
  TWILIO_AUTH_TOKEN: gw.authToken,
  TWILIO_FROM: "+15005550006",
  SMS_API_URL: gw.url,
});

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => {
      throw new Error("expected failure");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe("messaging(db): provider selection", () => {
  it("uses the dev outbox for both channels when nothing is configured outside production", async () => {
    const db = await getDb();
    const cfg = messagingConfig({}, "sandbox");
    expect(describeMessaging(cfg)).toEqual({ email: "dev-outbox", sms: "dev-outbox" });
    const m = messaging(db, cfg);
    const to = `yaw.${tag()}@example.com`;
    const num = phone();

    const e = await m.sendEmail({ to, subject: "Code", text: "123456" });
    const s = await m.sendSms({ to: num, text: "654321" });

    expect([e.provider, s.provider]).toEqual(["dev-outbox", "dev-outbox"]);
    expect(await db.devOutboxMessage.findMany({ where: { to: { in: [to, num] } }, orderBy: { channel: "asc" } })).toMatchObject([
      { channel: "email", to, subject: "Code", body: "123456" },
      { channel: "phone", to: num, subject: null, body: "654321" },
    ]);
  });

  it("uses SMTP for email and Twilio for SMS when configured, and nothing reaches the outbox", async () => {
    const db = await getDb();
    const cfg = messagingConfig({ SMTP_URL: smtp.url, EMAIL_FROM: "Bind Identity <no-reply@bind.example>", ...twilioEnv() }, "sandbox");
    expect(describeMessaging(cfg)).toEqual({ email: "smtp", sms: "twilio" });
    const m = messaging(db, cfg);
    const to = `abena.${tag()}@example.com`;
    const num = phone();

    expect((await m.sendEmail({ to, subject: "Hi", text: "Body" })).provider).toBe("smtp");
    expect((await m.sendSms({ to: num, text: "Hello" })).provider).toBe("twilio");

    expect(smtp.received.at(-1)).toMatchObject({ envelopeTo: [to], text: "Body" });
    expect(gw.messages.at(-1)).toMatchObject({ to: num, body: "Hello" });
    expect(await db.devOutboxMessage.count({ where: { to: { in: [to, num] } } })).toBe(0);
  });

  it("chooses per channel: SMTP email with outbox SMS", async () => {
    const cfg = messagingConfig({ SMTP_URL: smtp.url, EMAIL_FROM: "no-reply@bind.example" }, "sandbox");
    expect(describeMessaging(cfg)).toEqual({ email: "smtp", sms: "dev-outbox" });
    const num = phone();
    expect((await messaging(await getDb(), cfg).sendSms({ to: num, text: "x" })).provider).toBe("dev-outbox");
  });

  it("in production never falls back to the outbox: sends fail with PROVIDER_UNAVAILABLE and start-up check names the variables", async () => {
    const db = await getDb();
    const cfg = messagingConfig({}, "production");
    expect(describeMessaging(cfg)).toEqual({ email: "missing", sms: "missing" });
    const to = `kwame.${tag()}@example.com`;

    const err = await failure(messaging(db, cfg).sendEmail({ to, subject: "S", text: "T" }));
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.details).toEqual({ provider: "none", reason: "not_configured" });
    expect((await failure(messaging(db, cfg).sendSms({ to: phone(), text: "T" }))).message).toBe(
      "SMS delivery is not configured on this deployment.",
    );
    expect(await db.devOutboxMessage.count({ where: { to } })).toBe(0);

    expect(() => assertMessagingConfigured(cfg)).toThrow(/SMTP_URL and EMAIL_FROM[\s\S]*TWILIO_ACCOUNT_SID/);
    expect(() =>
      assertMessagingConfigured(
        messagingConfig(
          { SMTP_URL: "smtps://u:p@smtp.example.com", EMAIL_FROM: "a@b.example", ...twilioEnv(), SMS_API_URL: "https://api.twilio.com" },
          "production",
        ),
      ),
    ).not.toThrow();
  });

  it("refuses bad settings naming the variable, never its value", () => {
    const bad = (source: Record<string, string>, env: "sandbox" | "production" = "sandbox") => {
      try {
        messagingConfig(source, env);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error("expected the configuration to be refused");
    };
    const m1 = bad({ SMTP_URL: "http://user:hunter2@mail.example", EMAIL_FROM: "a@b.example" });
    expect(m1).toContain("SMTP_URL: must start with smtp:// or smtps://");
    expect(m1).not.toContain("hunter2");
    expect(bad({ SMTP_URL: "smtp://mail.example" })).toContain("EMAIL_FROM: is required");
    expect(bad({ SMTP_URL: "smtp://mail.example", EMAIL_FROM: "Bind <not an address>" })).toContain("EMAIL_FROM: must be");
    const m2 = bad({ SMS_PROVIDER: "twilio", TWILIO_ACCOUNT_SID: "AC../../evil", TWILIO_AUTH_TOKEN: "tok-secret" });
    expect(m2).toContain("TWILIO_ACCOUNT_SID: must be AC followed by 32 hex digits");
    expect(m2).toContain("TWILIO_FROM: TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID is required");
    expect(m2).not.toContain("tok-secret");
    expect(bad({ SMS_PROVIDER: "outbox" }, "production")).toContain("SMS_PROVIDER: outbox is refused when BI_ENV=production");
    expect(bad({ ...twilioEnv(), SMS_API_URL: "http://127.0.0.1:9" }, "production")).toContain("SMS_API_URL: must be https");
    expect(bad({ SMS_PROVIDER: "carrier-pigeon" })).toContain("SMS_PROVIDER");
    expect(bad({ MESSAGING_TIMEOUT_MS: "soon" })).toContain("MESSAGING_TIMEOUT_MS");
    expect(messagingConfig({ TWILIO_ACCOUNT_SID: gw.accountSid, TWILIO_AUTH_TOKEN: "t", TWILIO_FROM: "BindID" }, "sandbox").sms.kind).toBe(
      "twilio",
    );
  });

  it("checks messages before any provider sees them", async () => {
    const db = await getDb();
    const m = messaging(db, messagingConfig({ SMTP_URL: smtp.url, EMAIL_FROM: "no-reply@bind.example" }, "sandbox"));
    const before = smtp.received.length;
    const err = await failure(m.sendEmail({ to: "a@example.com, b@example.com", subject: "S", text: "T" }));
    expect(err.code).toBe("VALIDATION_ERROR");
    expect(err.details).toEqual({ issues: [expect.objectContaining({ path: "email.to" })] });
    expect((await failure(m.sendSms({ to: "0241234567", text: "T" }))).details).toEqual({
      issues: [{ path: "sms.to", message: "must be an E.164 number" }],
    });
    expect(smtp.received.length).toBe(before);
  });
});
