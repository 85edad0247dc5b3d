import net from "node:net";
import { describe, expect, it } from "vitest";
import { getDb } from "./db/client";
import { createTestOrg } from "./testing/harness";
import { startInstance, stopInstance, within } from "./testing/instance";
import { documentedKeys } from "./testing/keys";

/** Sends a request's head and the first half of its body now; `finish()` sends the rest and resolves to the raw answer. */
function halfSentRequest(base: string, path: string, apiKey: string, body: string) {
  const { hostname, port } = new URL(base);
  const sock = net.connect(Number(port), hostname);
  let answer = "";
  sock.on("data", (d) => (answer += d));
  const ended = new Promise<string>((resolve) => {
    sock.on("close", () => resolve(answer));
    sock.on("error", () => resolve(answer));
  });
  const half = Math.floor(body.length / 2);
  const opened = new Promise<void>((resolve) => sock.on("connect", resolve));
  return {
    opened: opened.then(() => {
      sock.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`,
      );
    }),
    finish: () => {
      sock.write(body.slice(half));
      return ended;
    },
  };
}

describe("stopping an instance (SIGTERM)", () => {
  it("turns readiness to 503 first, keeps serving, finishes the request in flight, then exits 0", async () => {
    const org = await createTestOrg({ plan: "institutional" });
    const inst = await startInstance({ BI_SHUTDOWN_DELAY_MS: "1500", BI_SHUTDOWN_GRACE_MS: "10000" });
    expect((await fetch(`${inst.base}/v1/ready`)).status).toBe(200);

    const inFlight = halfSentRequest(inst.base, "/v1/admin/api-keys", org.apiKey, JSON.stringify({ name: "minted while stopping" }));
    await inFlight.opened;
    await new Promise((r) => setTimeout(r, 200));
    const exited = stopInstance(inst, "SIGTERM");

    // Readiness says "stop sending" at once, in the documented envelope; other requests are still answered.
    expect(await within(1000, async () => (await fetch(`${inst.base}/v1/ready`)).status === 503)).not.toBeNull();
    const ready = await fetch(`${inst.base}/v1/ready`);
    expect(await ready.json()).toMatchObject({ error: { code: "NOT_READY", details: { reason: "draining" } } });
    expect((await fetch(`${inst.base}/v1/health`)).status).toBe(200);

    // After the delay the listener closes: new connections are refused while the request in flight is still open.
    expect(
      await within(5000, () =>
        fetch(`${inst.base}/v1/health`).then(
          () => false,
          () => true,
        ),
      ),
    ).not.toBeNull();
    expect(inst.child.exitCode).toBeNull();

    const answer = await inFlight.finish();
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(await exited).toBe(0);
    const db = await getDb();
    expect(await db.apiKey.count({ where: { orgId: org.orgId, name: "minted while stopping" } })).toBe(1);
  }, 60_000);
});

describe("starting in production", () => {
  it("refuses to start while platform settings are missing, naming each one, never a value", async () => {
    const secret = "s3cr3t-value-that-must-not-be-printed-0123456789";
    const failure = await startInstance({
      BI_ENV: "production",
      NEXTAUTH_SECRET: secret,
      BI_ENCRYPTION_KEY: "",
      KYC_PROVIDERS: "sandbox",
    }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failure).not.toBeNull();
    for (const name of ["BI_ENCRYPTION_KEY", "BI_HASH_KEY", "BI_ISSUER_SIGNING_KEY"]) expect(failure).toContain(name);
    expect(failure).not.toContain(secret);
  }, 60_000);

  it("then names every provider's missing or sandbox-only settings in one error", async () => {
    const failure = await startInstance({
      BI_ENV: "production",
      NEXTAUTH_SECRET: "x".repeat(40),
      ...documentedKeys(),
      KYC_PROVIDERS: "sandbox",
      BI_DEV_CODES: "",
      WEBHOOK_ALLOW_PRIVATE_URLS: "",
      SMTP_URL: "",
      STRIPE_SECRET_KEY: "",
      CHAIN_API_URL: "",
    }).then(
      () => null,
      (err: Error) => err.message,
    );
    for (const name of ["SMTP_URL", "KYC_PROVIDERS: sandbox is refused", "STRIPE_SECRET_KEY", "CHAIN_API_URL"])
      expect(failure).toContain(name);
  }, 60_000);
});
