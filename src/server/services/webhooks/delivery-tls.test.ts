import { execFileSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seal } from "@/server/crypto/secret-box";
import { type Db, getDb } from "@/server/db/client";
import { emitEvent } from "@/server/platform/outbox";
import { type FakeServer, listenOnLoopback } from "@/server/testing/fake-http";
import { createTestOrg } from "@/server/testing/harness";
import { driveWebhooks, webhookTestEnv } from "@/server/testing/webhook-drive";
import { verifyWebhook } from "@/webhooks/verify";

/**
 * HTTPS receivers on loopback with a certificate for hooks.example.test: the worker connects to
 * the checked address while TLS still names (SNI) and verifies the host name.
 */
const HOST = "hooks.example.test";
let db: Db;
let server: FakeServer;
let port: number;
let cert: string;
const seen: Array<{ servername: string | false | null; host: string; raw: Buffer; headers: Record<string, string> }> = [];
const resolver = async () => [{ address: "127.0.0.1", family: 4 as const }];

beforeAll(async () => {
  webhookTestEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_TIMEOUT_MS: "2000", WEBHOOK_BACKOFF_BASE_MS: "60000" });
  db = await getDb();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-tls-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
      "-subj",
      `/CN=${HOST}`,
      "-addext",
      `subjectAltName=DNS:${HOST}`,
    ],
    { stdio: "ignore" },
  );
  cert = fs.readFileSync(path.join(dir, "cert.pem"), "utf8");
  const tls = https.createServer({ key: fs.readFileSync(path.join(dir, "key.pem")), cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const socket = req.socket as import("node:tls").TLSSocket;
      seen.push({
        servername: socket.servername,
        host: req.headers.host ?? "",
        raw: Buffer.concat(chunks),
        headers: req.headers as Record<string, string>,
      });
      res.writeHead(204).end();
    });
  });
  server = await listenOnLoopback(tls);
  port = server.port;
  fs.rmSync(dir, { recursive: true, force: true });
});

afterAll(() => server.close());

async function oneEvent() {
  const org = await createTestOrg();
  await db.webhook.create({ data: { orgId: org.orgId, url: `https://${HOST}:${port}/hook`, events: ["*"], secretEnc: seal("whsec_tls") } });
  await db.$transaction((tx) => emitEvent(tx, org.orgId, "kyc.approved", { personDid: "did:web:localhost:people:1", level: "basic-kyc" }));
  return org.orgId;
}

const finished = (orgId: string) => async () =>
  (await db.webhookDelivery.count({ where: { orgId, status: { in: ["delivered", "failed"] } } })) === 1;

describe("webhooks over TLS", () => {
  it("delivers to the pinned address with SNI and certificate checked against the host name", async () => {
    const orgId = await oneEvent();
    await driveWebhooks(db, orgId, finished(orgId), { resolver, ca: cert });
    const row = await db.webhookDelivery.findFirstOrThrow({ where: { orgId } });
    expect(row).toMatchObject({ status: "delivered", lastStatusCode: 204 });
    const got = seen.at(-1)!;
    expect(got.servername).toBe(HOST);
    expect(got.host).toBe(`${HOST}:${port}`);
    expect(verifyWebhook(got.raw, got.headers, "whsec_tls").deliveryId).toBe(row.id);
  });

  it("an untrusted certificate is a failed attempt with a TLS error", async () => {
    const orgId = await oneEvent();
    const before = seen.length;
    await driveWebhooks(db, orgId, finished(orgId), { resolver });
    const row = await db.webhookDelivery.findFirstOrThrow({ where: { orgId } });
    expect(row).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: null });
    expect(row.lastError).toMatch(/^TLS handshake failed \(/);
    expect(seen.length).toBe(before);
  });

  it("a certificate for another name is refused even at the right address", async () => {
    const org = await createTestOrg();
    await db.webhook.create({
      data: { orgId: org.orgId, url: `https://other.example.test:${port}/hook`, events: ["*"], secretEnc: seal("whsec_tls") },
    });
    await db.$transaction((tx) => emitEvent(tx, org.orgId, "account.unlocked", { accountDid: "did:antelope:sandbox:tls" }));
    await driveWebhooks(db, org.orgId, finished(org.orgId), { resolver, ca: cert });
    const row = await db.webhookDelivery.findFirstOrThrow({ where: { orgId: org.orgId } });
    expect(row.status).toBe("failed");
    expect(row.lastError).toMatch(/^TLS handshake failed \(ERR_TLS_CERT_ALTNAME_INVALID\)/);
  });
});
