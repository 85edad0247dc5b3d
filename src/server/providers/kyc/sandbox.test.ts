import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SANDBOX_IDENTITIES, sandboxCallback, sandboxKybStatus, sandboxProvider, signSandboxBody } from "./sandbox";
import { ProviderError } from "./types";

const sandbox = sandboxProvider();
const publicUrl = "https://bind.example";

describe("sandbox provider", () => {
  it("starts KYC on a page of this app, with a token and a one-hour expiry", async () => {
    const s = await sandbox.startKyc({ externalId: crypto.randomUUID(), levelName: "basic-kyc", publicUrl: `${publicUrl}/` });
    expect(s.applicantId).toMatch(/^sbx_[0-9a-f]{24}$/);
    expect(s.verificationUrl).toBe(`${publicUrl}/identity/sandbox/${s.applicantId}`);
    expect(s.accessToken).toMatch(/^sbxat_/);
    expect(Math.abs(s.expiresAt.getTime() - Date.now() - 3600_000)).toBeLessThan(5000);
    const t = await sandbox.startKyc({ externalId: crypto.randomUUID(), levelName: "basic-kyc", publicUrl });
    expect(t.applicantId).not.toBe(s.applicantId);
  });

  it("fetchReview keeps no state: pending, no labels", async () => {
    expect(await sandbox.fetchReview("sbx_1", "p1")).toMatchObject({
      provider: "sandbox",
      applicantId: "sbx_1",
      externalId: "p1",
      status: "pending",
      labels: [],
      identity: {},
    });
  });

  it.each([
    ["CS1230", "rejected", ["COMPANY_NOT_FOUND"]],
    ["CS1239", "in_review", []],
    ["CS1231", "approved", []],
  ] as const)("KYB decides from the registration number: %s → %s", async (registrationNumber, status, labels) => {
    expect(sandboxKybStatus(registrationNumber)).toEqual({ status, labels });
    const k = await sandbox.startKyb({
      externalId: "org1",
      levelName: "basic-kyb",
      legalName: "X",
      registrationNumber,
      country: "GH",
      address: { line1: "a", city: "b", country: "GH" },
      publicUrl,
    });
    expect(k).toMatchObject({
      provider: "sandbox",
      verificationUrl: null,
      review: { provider: "sandbox", externalId: "org1", status, labels },
    });
  });
});

describe("sandbox callbacks", () => {
  const deliver = (outcome: Parameters<typeof sandboxCallback>[0]["outcome"]) => {
    const cb = sandboxCallback({ applicantId: "sbx_a", externalId: "person-1", outcome });
    return sandbox.verifyCallback(cb.rawBody, cb.headers);
  };

  it.each([
    ["approved", "approved", [], false, false, "GH"],
    ["rejected", "rejected", ["FORGERY"], false, false, "GH"],
    ["retry", "retry", ["BAD_PHOTO"], false, false, "GH"],
    ["pep", "approved", ["PEP"], true, false, "ES"],
    ["sanctions", "rejected", ["SANCTIONS"], false, true, "UA"],
  ] as const)("%s → %s %j (pep %s, sanctions %s)", (outcome, status, labels, pep, sanctions, country) => {
    const v = deliver(outcome);
    expect(v).toMatchObject({
      kind: "kyc_review",
      review: { provider: "sandbox", applicantId: "sbx_a", externalId: "person-1", status, labels, pep, sanctions, country },
    });
    if (v?.kind === "kyc_review") expect(v.review.identity).toEqual(SANDBOX_IDENTITIES[outcome]);
  });

  it("uses the fixture screening names for pep and sanctions", () => {
    expect(SANDBOX_IDENTITIES.sanctions).toEqual({ fullName: "Ivan Testovich Petrenko", birthDate: "1961-04-12", country: "UA" });
    expect(SANDBOX_IDENTITIES.pep).toEqual({ fullName: "Maria Fictitia Sandoval", birthDate: "1970-09-03", country: "ES" });
    expect(SANDBOX_IDENTITIES.approved).toEqual({ fullName: "Alex Example Sample", birthDate: "1990-01-01", country: "GH" });
  });

  it("carries given identity attributes, and each delivery has its own event id", () => {
    const identity = { fullName: "Efua Owusu", birthDate: "2000-12-31", country: "GH" };
    const a = sandboxCallback({ applicantId: "sbx_b", externalId: "p", outcome: "approved", identity });
    const b = sandboxCallback({ applicantId: "sbx_b", externalId: "p", outcome: "approved", identity });
    const va = sandbox.verifyCallback(a.rawBody, a.headers);
    const vb = sandbox.verifyCallback(b.rawBody, b.headers);
    expect(va).toMatchObject({ review: { identity } });
    expect(va!.eventId).not.toBe(vb!.eventId);
  });

  it("is signed with HMAC-SHA256 over the raw bytes (not with the bare encryption key)", () => {
    const cb = sandboxCallback({ applicantId: "sbx_c", externalId: "p", outcome: "approved" });
    expect(cb.headers.get("x-payload-digest")).toBe(signSandboxBody(cb.rawBody));
    expect(cb.headers.get("x-payload-digest")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a tampered body, a missing or foreign signature is null", () => {
    const cb = sandboxCallback({ applicantId: "sbx_d", externalId: "p", outcome: "rejected" });
    const tampered = Buffer.from(cb.rawBody.toString().replace('"rejected"', '"approved"'));
    expect(sandbox.verifyCallback(tampered, cb.headers)).toBeNull();
    const none = new Headers(cb.headers);
    none.delete("x-payload-digest");
    expect(sandbox.verifyCallback(cb.rawBody, none)).toBeNull();
    const foreign = new Headers(cb.headers);
    foreign.set("x-payload-digest", createHmac("sha256", "someone-else").update(cb.rawBody).digest("hex"));
    expect(sandbox.verifyCallback(cb.rawBody, foreign)).toBeNull();
  });

  it("a signed event of another type is ignored; a signed body of the wrong shape throws", () => {
    const raw = Buffer.from(JSON.stringify({ type: "sandbox.applicantCreated", eventId: "e1" }));
    expect(sandbox.verifyCallback(raw, new Headers({ "x-payload-digest": signSandboxBody(raw) }))).toEqual({
      kind: "ignored",
      eventId: "e1",
      type: "sandbox.applicantCreated",
    });
    const bad = Buffer.from("[1,2]");
    expect(() => sandbox.verifyCallback(bad, new Headers({ "x-payload-digest": signSandboxBody(bad) }))).toThrow(ProviderError);
  });
});
