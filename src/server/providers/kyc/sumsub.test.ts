import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeSumsub, startFakeSumsub } from "../../testing/fake-sumsub";
import { sumsubProvider } from "./sumsub";
import { type KycProvider, ProviderError } from "./types";

let fake: FakeSumsub;
let sumsub: KycProvider;
const publicUrl = "http://localhost:3000";
const person = () => crypto.randomUUID();

const provider = (over: Partial<Parameters<typeof sumsubProvider>[0]> = {}) =>
  sumsubProvider({
    appToken: fake.appToken,
    secretKey: fake.secretKey,
    webhookSecret: fake.webhookSecret,
    apiUrl: fake.url,
    timeoutMs: 2000,
    ...over,
  });

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => new Error("expected a ProviderError"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

beforeAll(async () => {
  fake = await startFakeSumsub();
  sumsub = provider();
});
afterAll(() => fake.close());
beforeEach(() => fake.setMode("ok"));

describe("sumsub: request signing, checked by the fake", () => {
  it("starts KYC: applicant on the level, WebSDK link and SDK token, every request accepted by the fake's signature check", async () => {
    const externalId = person();
    const before = fake.requests.length;
    const s = await sumsub.startKyc({ externalId, levelName: "basic-kyc", publicUrl, redirectUrl: "http://localhost:3000/identity/done" });

    const sent = fake.requests.slice(before);
    expect(sent.map((r) => [r.method, r.path.split("?")[0], r.status])).toEqual([
      ["POST", "/resources/applicants", 201],
      ["POST", "/resources/sdkIntegrations/levels/-/websdkLink", 200],
      ["POST", "/resources/accessTokens/sdk", 200],
    ]);
    expect(sent[0]!.path).toBe("/resources/applicants?levelName=basic-kyc");
    expect(sent[0]!.body).toEqual({ externalUserId: externalId });
    expect(sent[1]!.body).toMatchObject({
      levelName: "basic-kyc",
      userId: externalId,
      redirect: { successUrl: "http://localhost:3000/identity/done" },
    });
    expect(fake.applicants.get(s.applicantId)).toMatchObject({ externalUserId: externalId, levelName: "basic-kyc", type: "individual" });
    expect(s.verificationUrl).toMatch(/^https:\/\/in\.sumsub\.com\/websdk\/p\//);
    expect(s.accessToken).toMatch(/^_act-sbx-/);
    expect(s.expiresAt.getTime()).toBeGreaterThan(Date.now() + 3500_000);
  });

  it("is refused by the fake (401, permanent) when signed with the wrong secret key, keeping Sumsub's error name though it has a space", async () => {
    const err = await providerError(
      provider({ secretKey: "not-the-secret" }).startKyc({ externalId: person(), levelName: "basic-kyc", publicUrl }),
    );
    // Sumsub writes this one name as "app-token-signature mismatch".
    expect(err).toMatchObject({ kind: "permanent", provider: "sumsub", providerCode: "app-token-signature-mismatch" });
    expect(err.message).toBe("sumsub answered HTTP 401 (app-token-signature-mismatch)");
    expect(fake.requests.at(-1)!.status).toBe(401);
  });

  it("signs the request-target as fetch sends it: a level name with an apostrophe (sent as %27) is accepted", async () => {
    const levelName = "o'brien-kyc";
    fake.levels.add(levelName);
    const externalId = person();
    const before = fake.requests.length;
    const s = await sumsub.startKyc({ externalId, levelName, publicUrl });

    const sent = fake.requests.slice(before);
    expect(sent.map((r) => [r.path, r.status])).toEqual([
      ["/resources/applicants?levelName=o%27brien-kyc", 201],
      ["/resources/sdkIntegrations/levels/-/websdkLink", 200],
      ["/resources/accessTokens/sdk", 200],
    ]);
    expect(fake.applicants.get(s.applicantId)).toMatchObject({ externalUserId: externalId, levelName });
  });

  it("is accepted within Sumsub's one-minute clock window and refused outside it (permanent: our clock is wrong)", async () => {
    const { applicantId } = await sumsub.startKyc({ externalId: person(), levelName: "basic-kyc", publicUrl });
    try {
      for (const offset of [45, -45]) {
        fake.setClockOffset(offset);
        expect((await sumsub.fetchReview(applicantId, "x")).applicantId).toBe(applicantId);
      }
      for (const offset of [75, -75]) {
        fake.setClockOffset(offset);
        const err = await providerError(sumsub.fetchReview(applicantId, "x"));
        expect(err).toMatchObject({ kind: "permanent", providerCode: "app-token-request-expired" });
        expect(fake.requests.at(-1)!.status).toBe(401);
      }
    } finally {
      fake.setClockOffset(0);
    }
  });

  it("is refused with an unknown app token", async () => {
    const err = await providerError(provider({ appToken: "sbx:wrong" }).fetchReview("x", "y"));
    expect(err).toMatchObject({ kind: "permanent", providerCode: "app-token-not-found" });
  });

  it("a second start for the same person reuses the applicant Sumsub already has (409 → look-up)", async () => {
    const externalId = person();
    const a = await sumsub.startKyc({ externalId, levelName: "basic-kyc", publicUrl });
    const b = await sumsub.startKyc({ externalId, levelName: "basic-kyc", publicUrl });
    expect(b.applicantId).toBe(a.applicantId);
    expect(fake.requests.some((r) => r.path === `/resources/applicants/-;externalUserId=${externalId}/one` && r.status === 200)).toBe(true);
  });
});

describe("sumsub: errors", () => {
  it("a bad level name is permanent; Sumsub names no error code for it, so the HTTP status stands in, and no description text", async () => {
    const err = await providerError(sumsub.startKyc({ externalId: person(), levelName: "no-such-level", publicUrl }));
    expect(err).toMatchObject({ kind: "permanent", providerCode: "http_400", retryAfterSec: undefined });
    expect(err.message).not.toContain("no-such-level");
    expect(err.message).not.toContain("Existing level");
  });

  it("429 is transient with Retry-After seconds; 503 transient with Retry-After as an HTTP date", async () => {
    fake.setMode("rate_limited");
    expect(await providerError(sumsub.fetchReview("x", "y"))).toMatchObject({ kind: "transient", retryAfterSec: 7 });
    fake.setMode("unavailable");
    const err = await providerError(sumsub.fetchReview("x", "y"));
    expect(err.kind).toBe("transient");
    expect(err.retryAfterSec).toBeGreaterThanOrEqual(28);
    expect(err.retryAfterSec).toBeLessThanOrEqual(31);
  });

  it("a provider that never answers times out as transient", async () => {
    fake.setMode("hang");
    const err = await providerError(provider({ timeoutMs: 150 }).fetchReview("x", "y"));
    expect(err).toMatchObject({ kind: "transient", providerCode: "timeout" });
  });

  it("a closed port is transient (network)", async () => {
    const err = await providerError(provider({ apiUrl: "http://127.0.0.1:9" }).fetchReview("x", "y"));
    expect(err).toMatchObject({ kind: "transient", providerCode: "network" });
  });
});

describe("sumsub: fetchReview mapping", () => {
  async function started() {
    const externalId = person();
    const s = await sumsub.startKyc({ externalId, levelName: "basic-kyc", publicUrl });
    return { externalId, applicantId: s.applicantId };
  }

  it("init → pending; queued / onHold → in_review", async () => {
    const { externalId, applicantId } = await started();
    expect((await sumsub.fetchReview(applicantId, externalId)).status).toBe("pending");
    fake.review(applicantId, { pending: "queued" });
    expect((await sumsub.fetchReview(applicantId, externalId)).status).toBe("in_review");
    fake.review(applicantId, { pending: "onHold" });
    expect((await sumsub.fetchReview(applicantId, externalId)).status).toBe("in_review");
  });

  it("GREEN → approved with identity from info and the alpha-3 country as alpha-2", async () => {
    const { externalId, applicantId } = await started();
    fake.review(applicantId, {
      answer: "GREEN",
      info: { firstName: "Ama", middleName: "Serwaa", lastName: "Mensah", dob: "1992-05-17", country: "GHA" },
    });
    const r = await sumsub.fetchReview(applicantId, externalId);
    expect(r).toMatchObject({
      provider: "sumsub",
      applicantId,
      externalId,
      status: "approved",
      labels: [],
      pep: false,
      sanctions: false,
      country: "GH",
      identity: { fullName: "Ama Serwaa Mensah", birthDate: "1992-05-17", country: "GH" },
    });
    expect(r.reviewedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
  });

  it("RED + FINAL → rejected; RED + RETRY → retry; SANCTIONS and PEP labels set the flags", async () => {
    const { externalId, applicantId } = await started();
    fake.review(applicantId, { answer: "RED", rejectType: "FINAL", labels: ["FORGERY"] });
    expect(await sumsub.fetchReview(applicantId, externalId)).toMatchObject({ status: "rejected", labels: ["FORGERY"], sanctions: false });
    fake.review(applicantId, { answer: "RED", rejectType: "RETRY", labels: ["UNSATISFACTORY_PHOTOS"] });
    expect(await sumsub.fetchReview(applicantId, externalId)).toMatchObject({ status: "retry", labels: ["UNSATISFACTORY_PHOTOS"] });
    fake.review(applicantId, {
      answer: "RED",
      rejectType: "FINAL",
      labels: ["SANCTIONS", "PEP"],
      info: { firstName: "Ivan", lastName: "Petrenko", country: "UKR" },
    });
    expect(await sumsub.fetchReview(applicantId, externalId)).toMatchObject({
      status: "rejected",
      sanctions: true,
      pep: true,
      country: "UA",
    });
  });

  it("an unknown alpha-3 country (Kosovo's XKX) gives no country rather than a wrong one", async () => {
    const { externalId, applicantId } = await started();
    fake.review(applicantId, { answer: "GREEN", info: { firstName: "A", lastName: "B", country: "XKX" } });
    expect((await sumsub.fetchReview(applicantId, externalId)).country).toBeNull();
  });
});

describe("sumsub: callbacks", () => {
  async function reviewed(answer: "GREEN" | "RED", rejectType?: "FINAL" | "RETRY", labels?: string[]) {
    const externalId = person();
    const s = await sumsub.startKyc({ externalId, levelName: "basic-kyc", publicUrl });
    fake.review(s.applicantId, { answer, rejectType, labels });
    return { externalId, applicantId: s.applicantId };
  }

  it("a correctly signed applicantReviewed maps to a KYC review keyed on the correlationId", async () => {
    const { externalId, applicantId } = await reviewed("GREEN");
    const cb = fake.reviewedCallback(applicantId);
    const v = sumsub.verifyCallback(cb.rawBody, cb.headers);
    expect(v).toMatchObject({
      kind: "kyc_review",
      review: { provider: "sumsub", applicantId, externalId, status: "approved", identity: {}, country: null },
    });
    expect(v!.eventId).toBe(JSON.parse(cb.rawBody.toString()).correlationId);
  });

  it.each(["HMAC_SHA1_HEX", "HMAC_SHA256_HEX", "HMAC_SHA512_HEX"] as const)("accepts the %s digest", async (alg) => {
    const { applicantId } = await reviewed("RED", "RETRY", ["UNSATISFACTORY_PHOTOS"]);
    const cb = fake.reviewedCallback(applicantId, alg);
    expect(sumsub.verifyCallback(cb.rawBody, cb.headers)).toMatchObject({ kind: "kyc_review", review: { status: "retry" } });
  });

  it("a callback without X-Payload-Digest-Alg is checked as Sumsub's legacy HMAC-SHA1", async () => {
    const { externalId, applicantId } = await reviewed("RED", "FINAL", ["FORGERY"]);
    const legacy = fake.reviewedCallback(applicantId, "legacy");
    expect(legacy.headers.has("x-payload-digest-alg")).toBe(false);
    expect(sumsub.verifyCallback(legacy.rawBody, legacy.headers)).toMatchObject({
      kind: "kyc_review",
      review: { applicantId, externalId, status: "rejected", labels: ["FORGERY"] },
    });

    // A SHA-256 digest is only good under a header that says so.
    const sha256 = fake.reviewedCallback(applicantId, "HMAC_SHA256_HEX");
    const unnamed = new Headers(sha256.headers);
    unnamed.delete("x-payload-digest-alg");
    expect(sumsub.verifyCallback(sha256.rawBody, unnamed)).toBeNull();
    expect(sumsub.verifyCallback(sha256.rawBody, sha256.headers)).toMatchObject({ kind: "kyc_review" });
  });

  it("a forged, tampered, unsigned or unknown-algorithm callback is null", async () => {
    const { applicantId } = await reviewed("GREEN");
    const forged = fake.forgedCallback(applicantId);
    expect(sumsub.verifyCallback(forged.rawBody, forged.headers)).toBeNull();

    const good = fake.reviewedCallback(applicantId);
    const tampered = Buffer.from(good.rawBody.toString().replace('"GREEN"', '"RED"'));
    expect(sumsub.verifyCallback(tampered, good.headers)).toBeNull();

    const unsigned = new Headers(good.headers);
    unsigned.delete("x-payload-digest");
    expect(sumsub.verifyCallback(good.rawBody, unsigned)).toBeNull();

    const md5 = new Headers(good.headers);
    md5.set("x-payload-digest-alg", "HMAC_MD5_HEX");
    expect(sumsub.verifyCallback(good.rawBody, md5)).toBeNull();
  });

  it("a correctly signed event we do not act on is ignored; without correlationId the event id is the body's SHA-256", async () => {
    const cb = fake.signedCallback({ applicantId: "abc", externalUserId: "x", type: "applicantCreated", reviewStatus: "init" });
    const v = sumsub.verifyCallback(cb.rawBody, cb.headers);
    expect(v).toMatchObject({ kind: "ignored", type: "applicantCreated" });
    expect(v!.eventId).toBe((await import("node:crypto")).createHash("sha256").update(cb.rawBody).digest("hex"));
  });

  it("a company applicant's review is a KYB review", async () => {
    const cb = fake.signedCallback({
      applicantId: "c1",
      externalUserId: "org-1",
      type: "applicantReviewed",
      applicantType: "company",
      reviewStatus: "completed",
      reviewResult: { reviewAnswer: "GREEN" },
    });
    expect(sumsub.verifyCallback(cb.rawBody, cb.headers)).toMatchObject({
      kind: "kyb_review",
      review: { applicantId: "c1", externalId: "org-1", status: "approved" },
    });
  });

  it("a correctly signed body that is not Sumsub's shape is a permanent error, not a silent success", () => {
    const cb = fake.signedCallback(["not", "an", "event"]);
    expect(() => sumsub.verifyCallback(cb.rawBody, cb.headers)).toThrow(ProviderError);
  });
});

describe("sumsub: KYB", () => {
  it("creates a company applicant with companyInfo (alpha-3 country) and a WebSDK link", async () => {
    const externalId = person();
    const k = await sumsub.startKyb({
      externalId,
      levelName: "basic-kyb",
      legalName: "Kente Labs Ltd",
      registrationNumber: "CS123456789",
      country: "GH",
      address: { line1: "1 Oxford Street", city: "Accra", postalCode: "GA-123", country: "GH" },
      publicUrl,
    });
    expect(k).toMatchObject({ provider: "sumsub", review: null });
    expect(k.verificationUrl).toMatch(/^https:\/\//);
    expect(fake.applicants.get(k.applicantId)).toMatchObject({
      type: "company",
      externalUserId: externalId,
      fixedInfo: {
        companyInfo: {
          companyName: "Kente Labs Ltd",
          registrationNumber: "CS123456789",
          country: "GHA",
          legalAddress: "1 Oxford Street, GA-123, Accra",
        },
      },
    });
  });
});
