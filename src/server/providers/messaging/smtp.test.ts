import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appErrorOf } from "../../testing/rejection";
import { startTestSmtpServer, type TestSmtpServer } from "../../testing/smtp-test-server";
import { smtpEmail } from "./smtp";

const FROM = "Bind Identity <no-reply@bind.example>";
let smtp: TestSmtpServer;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
});
afterAll(async () => {
  await smtp.close();
});

/** A port nothing listens on: bind, note it, release it. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("smtpEmail against a real SMTP server", () => {
  it("delivers a text email: authenticated, right envelope, headers and body", async () => {
    const mail = smtpEmail({ url: smtp.url, from: FROM, timeoutMs: 5000 });
    const out = await mail.sendEmail({
      to: "ama@example.com",
      subject: "Your code is 123456",
      text: "Código: 123456\nIt expires in 10 minutes.",
    });

    expect(out.provider).toBe("smtp");
    expect(out.id).toMatch(/^<.+@.+>$/);
    const got = smtp.received.at(-1)!;
    expect(got.user).toBe("mailer");
    expect(got.envelopeFrom).toBe("no-reply@bind.example");
    expect(got.envelopeTo).toEqual(["ama@example.com"]);
    expect(got.headers.from).toBe("Bind Identity <no-reply@bind.example>");
    expect(got.headers.to).toBe("ama@example.com");
    expect(got.headers.subject).toBe("Your code is 123456");
    expect(got.headers["message-id"]).toBe(out.id);
    expect(got.text).toBe("Código: 123456\nIt expires in 10 minutes.".replace(/\n/g, "\r\n"));
    expect(got.html).toBeUndefined();
  });

  it("sends text and html as alternatives", async () => {
    const mail = smtpEmail({ url: smtp.url, from: FROM, timeoutMs: 5000 });
    await mail.sendEmail({ to: "kofi@example.com", subject: "Welcome", text: "Hello Kofi", html: "<p>Hello <b>Kofi</b></p>" });

    const got = smtp.received.at(-1)!;
    expect(got.headers["content-type"]).toMatch(/^multipart\/alternative/);
    expect(got.text).toBe("Hello Kofi");
    expect(got.html).toBe("<p>Hello <b>Kofi</b></p>");
  });

  it("maps a rejected recipient to PROVIDER_FAILURE without the address or body", async () => {
    const before = smtp.received.length;
    const mail = smtpEmail({ url: smtp.url, from: FROM, timeoutMs: 5000 });
    const err = await appErrorOf(mail.sendEmail({ to: "reject-me@example.com", subject: "S", text: "secret 654321" }));

    expect(err.code).toBe("PROVIDER_FAILURE");
    expect(err.details).toMatchObject({ provider: "smtp", reason: "recipient_rejected", smtpCode: 550 });
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toMatch(/reject-me|example\.com|654321/);
    expect(smtp.received.length).toBe(before);
  });

  it("maps a temporary recipient refusal (4xx) to PROVIDER_UNAVAILABLE", async () => {
    const mail = smtpEmail({ url: smtp.url, from: FROM, timeoutMs: 5000 });
    const err = await appErrorOf(mail.sendEmail({ to: "defer-me@example.com", subject: "S", text: "T" }));
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.details).toMatchObject({ reason: "deferred", smtpCode: 451 });
    expect(err.message).not.toContain("defer-me");
  });

  it("maps refused credentials to PROVIDER_FAILURE", async () => {
    const mail = smtpEmail({ url: `smtp://mailer:wrong@127.0.0.1:${smtp.port}`, from: FROM, timeoutMs: 5000 });
    const err = await appErrorOf(mail.sendEmail({ to: "ama@example.com", subject: "S", text: "T" }));
    expect(err.code).toBe("PROVIDER_FAILURE");
    expect(err.details).toMatchObject({ reason: "auth_failed" });
    expect(err.message).not.toContain("wrong");
  });

  it("maps no server listening to PROVIDER_UNAVAILABLE", async () => {
    const mail = smtpEmail({ url: `smtp://mailer:x@127.0.0.1:${await freePort()}`, from: FROM, timeoutMs: 5000 });
    const err = await appErrorOf(mail.sendEmail({ to: "ama@example.com", subject: "S", text: "T" }));
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.status).toBe(503);
    expect(err.details).toMatchObject({ provider: "smtp", reason: "unreachable" });
  });

  it("gives up on a server that never greets, after the timeout", async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const port = (silent.address() as AddressInfo).port;
      const mail = smtpEmail({ url: `smtp://mailer:x@127.0.0.1:${port}`, from: FROM, timeoutMs: 300 });
      const started = Date.now();
      const err = await appErrorOf(mail.sendEmail({ to: "ama@example.com", subject: "S", text: "T" }));
      expect(err.code).toBe("PROVIDER_UNAVAILABLE");
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      silent.close();
    }
  });
});
