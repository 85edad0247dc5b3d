import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSumsub, startFakeSumsub } from "../../testing/fake-sumsub";
import { type FakeVeriff, startFakeVeriff } from "../../testing/fake-veriff";
import { sumsubProvider } from "./sumsub";
import type { KycProvider, VerifiedCallback } from "./types";
import { veriffProvider } from "./veriff";

/**
 * Callbacks sent over real HTTP by the fakes to a receiver that verifies the exact bytes it got,
 * as the callback route does: header names and body bytes must survive the wire.
 */
let sumsub: FakeSumsub;
let veriff: FakeVeriff;
let receiver: http.Server;
let url: string;
const providers: Record<string, KycProvider> = {};
const received: (VerifiedCallback | null)[] = [];

beforeAll(async () => {
  [sumsub, veriff] = await Promise.all([startFakeSumsub(), startFakeVeriff()]);
  providers.sumsub = sumsubProvider({
    appToken: sumsub.appToken,
    secretKey: sumsub.secretKey,
    webhookSecret: sumsub.webhookSecret,
    apiUrl: sumsub.url,
    timeoutMs: 2000,
  });
  providers.veriff = veriffProvider({ apiKey: veriff.apiKey, sharedSecret: veriff.sharedSecret, apiUrl: veriff.url, timeoutMs: 2000 });
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      // A signed body the adapter cannot read still gets an answer, so a failing case fails at once instead of timing out.
      let v: VerifiedCallback | null;
      try {
        v = providers[(req.url ?? "").slice(1)]!.verifyCallback(Buffer.concat(chunks), headers);
      } catch {
        received.push(null);
        res.writeHead(400).end();
        return;
      }
      received.push(v);
      res.writeHead(v ? 200 : 401).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all([sumsub.close(), veriff.close(), new Promise((r) => receiver.close(r))]);
});

describe("provider callbacks over HTTP", () => {
  it("Sumsub: the signed review is accepted (200) and mapped; the forged one is refused (401)", async () => {
    const externalId = crypto.randomUUID();
    const s = await providers.sumsub!.startKyc({ externalId, levelName: "basic-kyc", publicUrl: "http://localhost:3000" });
    sumsub.review(s.applicantId, { answer: "RED", rejectType: "FINAL", labels: ["FORGERY"] });
    expect(await sumsub.send(`${url}/sumsub`, sumsub.reviewedCallback(s.applicantId))).toBe(200);
    expect(received.at(-1)).toMatchObject({ kind: "kyc_review", review: { externalId, status: "rejected", labels: ["FORGERY"] } });
    expect(await sumsub.send(`${url}/sumsub`, sumsub.forgedCallback(s.applicantId))).toBe(401);
  });

  it("Sumsub: a legacy callback (HMAC-SHA1, no X-Payload-Digest-Alg) is accepted (200) and mapped", async () => {
    const externalId = crypto.randomUUID();
    const s = await providers.sumsub!.startKyc({ externalId, levelName: "basic-kyc", publicUrl: "http://localhost:3000" });
    sumsub.review(s.applicantId, { answer: "GREEN" });
    expect(await sumsub.send(`${url}/sumsub`, sumsub.reviewedCallback(s.applicantId, "legacy"))).toBe(200);
    expect(received.at(-1)).toMatchObject({ kind: "kyc_review", review: { applicantId: s.applicantId, externalId, status: "approved" } });
  });

  it("Veriff: a decision whose reasonCode is a string is accepted (200) and mapped", async () => {
    const externalId = crypto.randomUUID();
    const s = await providers.veriff!.startKyc({ externalId, levelName: "basic-kyc", publicUrl: "http://localhost:3000" });
    veriff.decide(s.applicantId, { status: "resubmission_requested", reasonCode: "201" });
    expect(await veriff.send(`${url}/veriff`, veriff.decisionWebhook(s.applicantId))).toBe(200);
    expect(received.at(-1)).toMatchObject({
      kind: "kyc_review",
      review: { applicantId: s.applicantId, externalId, status: "retry", labels: ["VERIFF_REASON_201"] },
    });
  });

  it("Veriff: the signed decision is accepted (200) and mapped; the forged one is refused (401)", async () => {
    const externalId = crypto.randomUUID();
    const s = await providers.veriff!.startKyc({ externalId, levelName: "basic-kyc", publicUrl: "http://localhost:3000" });
    veriff.decide(s.applicantId, {
      status: "approved",
      person: { firstName: "Yaa", lastName: "Asantewaa", dateOfBirth: "1995-03-06" },
      documentCountry: "GH",
    });
    expect(await veriff.send(`${url}/veriff`, veriff.decisionWebhook(s.applicantId))).toBe(200);
    expect(received.at(-1)).toMatchObject({
      kind: "kyc_review",
      review: { externalId, status: "approved", country: "GH", identity: { fullName: "Yaa Asantewaa" } },
    });
    expect(await veriff.send(`${url}/veriff`, veriff.forgedWebhook(s.applicantId))).toBe(401);
  });
});
