import { createHash } from "node:crypto";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeVeriff, startFakeVeriff } from "../../testing/fake-veriff";
import { type KycProvider, ProviderError } from "./types";
import { veriffProvider } from "./veriff";

let fake: FakeVeriff;
let veriff: KycProvider;
const publicUrl = "http://localhost:3000";
const person = () => crypto.randomUUID();

const provider = (over: Partial<Parameters<typeof veriffProvider>[0]> = {}) =>
  veriffProvider({ apiKey: fake.apiKey, sharedSecret: fake.sharedSecret, apiUrl: fake.url, timeoutMs: 2000, ...over });

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => new Error("expected a ProviderError"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** A loopback URL nothing listens on: a connection there is refused before anything is sent. */
async function closedPortUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

async function started(redirectUrl?: string) {
  const externalId = person();
  const s = await veriff.startKyc({ externalId, levelName: "basic-kyc", publicUrl, redirectUrl });
  return { externalId, sessionId: s.applicantId, s };
}

beforeAll(async () => {
  fake = await startFakeVeriff();
  veriff = provider();
});
afterAll(() => fake.close());
beforeEach(() => fake.setMode("ok"));

describe("veriff: request signing, checked by the fake", () => {
  it("creates a session with vendorData and the return URL; body HMAC accepted by the fake", async () => {
    const before = fake.requests.length;
    const { externalId, sessionId, s } = await started("http://localhost:3000/identity/done");
    const sent = fake.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: "POST", path: "/v1/sessions", status: 201 });
    expect(sent[0]!.body).toEqual({ verification: { callback: "http://localhost:3000/identity/done", vendorData: externalId } });
    expect(fake.sessions.get(sessionId)).toMatchObject({ vendorData: externalId });
    expect(s).toMatchObject({
      provider: "veriff",
      verificationUrl: fake.sessions.get(sessionId)!.url,
      accessToken: fake.sessions.get(sessionId)!.sessionToken,
    });
  });

  it("without a redirect the person returns to /identity", async () => {
    const { sessionId } = await started();
    expect(fake.sessions.get(sessionId)!.callback).toBe("http://localhost:3000/identity");
  });

  it("a wrong shared secret is refused by the fake: 1819 for a POST body, 1818 for a GET session id", async () => {
    const bad = provider({ sharedSecret: "not-the-secret" });
    expect(await providerError(bad.startKyc({ externalId: person(), levelName: "x", publicUrl }))).toMatchObject({
      kind: "permanent",
      providerCode: "1819",
    });
    const { externalId, sessionId } = await started();
    expect(await providerError(bad.fetchReview(sessionId, externalId))).toMatchObject({ kind: "permanent", providerCode: "1818" });
  });

  it("an unknown API key is refused (1803, permanent)", async () => {
    const err = await providerError(
      provider({ apiKey: crypto.randomUUID() }).startKyc({ externalId: person(), levelName: "x", publicUrl }),
    );
    expect(err).toMatchObject({ kind: "permanent", providerCode: "1803" });
  });

  it("429, 503 and a hang are transient; 503's Retry-After is kept", async () => {
    fake.setMode("rate_limited");
    expect(await providerError(veriff.startKyc({ externalId: person(), levelName: "x", publicUrl }))).toMatchObject({
      kind: "transient",
      retryAfterSec: 7,
    });
    fake.setMode("unavailable");
    expect(await providerError(veriff.startKyc({ externalId: person(), levelName: "x", publicUrl }))).toMatchObject({
      kind: "transient",
      retryAfterSec: 12,
    });
    fake.setMode("hang");
    expect(await providerError(provider({ timeoutMs: 150 }).fetchReview("s", "p"))).toMatchObject({
      kind: "transient",
      providerCode: "timeout",
    });
  });

  it("has no KYB: startKyb is a permanent refusal and supportsKyb is false", async () => {
    expect(veriff.supportsKyb).toBe(false);
    const before = fake.requests.length;
    const input = {
      externalId: person(),
      levelName: "kyb",
      legalName: "A",
      registrationNumber: "1",
      country: "GH",
      address: { line1: "a", city: "b", country: "GH" },
      publicUrl,
    };
    expect(await providerError(veriff.startKyb(input))).toMatchObject({ kind: "permanent", providerCode: "kyb_not_supported" });
    expect(fake.requests.length).toBe(before);
  });
});

describe("veriff: a session-creating POST is repeated only when it cannot have reached Veriff", () => {
  it("connection refused: nothing was sent, so the failure is repeatable", async () => {
    const err = await providerError(
      provider({ apiUrl: await closedPortUrl() }).startKyc({ externalId: person(), levelName: "x", publicUrl }),
    );
    expect(err).toMatchObject({ kind: "transient", providerCode: "network", repeatable: true });
  });

  it("429: Veriff refused it before doing anything, so it is repeatable", async () => {
    fake.setMode("rate_limited");
    const before = fake.sessions.size;
    const err = await providerError(veriff.startKyc({ externalId: person(), levelName: "x", publicUrl }));
    expect(err).toMatchObject({ kind: "transient", retryAfterSec: 7, repeatable: true });
    expect(fake.sessions.size).toBe(before);
  });

  it("a 5xx or a lost answer after the session was created is transient but not repeatable; the session is there", async () => {
    const externalId = person();
    fake.loseAnswerAfterCreating("bad_gateway", 1);
    const err = await providerError(veriff.startKyc({ externalId, levelName: "x", publicUrl }));
    expect(err).toMatchObject({ kind: "transient", providerCode: "http_502", repeatable: false });
    expect([...fake.sessions.values()].filter((s) => s.vendorData === externalId)).toHaveLength(1);

    const hung = person();
    fake.loseAnswerAfterCreating("hang", 1);
    const timedOut = await providerError(provider({ timeoutMs: 150 }).startKyc({ externalId: hung, levelName: "x", publicUrl }));
    expect(timedOut).toMatchObject({ kind: "transient", providerCode: "timeout", repeatable: false });
    expect([...fake.sessions.values()].filter((s) => s.vendorData === hung)).toHaveLength(1);
  });

  it("reading a decision changes nothing at Veriff, so its failures stay repeatable", async () => {
    const { externalId, sessionId } = await started();
    fake.setMode("server_error");
    expect(await providerError(veriff.fetchReview(sessionId, externalId))).toMatchObject({ kind: "transient", repeatable: true });
  });
});

describe("veriff: decision mapping (GET /v1/sessions/{id}/decision)", () => {
  it("no decision yet → pending", async () => {
    const { externalId, sessionId } = await started();
    expect(await veriff.fetchReview(sessionId, externalId)).toMatchObject({
      status: "pending",
      labels: [],
      applicantId: sessionId,
      externalId,
    });
  });

  it("approved → approved with the person's identity and the document country", async () => {
    const { externalId, sessionId } = await started();
    fake.decide(sessionId, {
      status: "approved",
      person: { firstName: "Kwame", lastName: "Boateng", dateOfBirth: "1988-02-29", nationality: "GH" },
      documentCountry: "GH",
    });
    const r = await veriff.fetchReview(sessionId, externalId);
    expect(r).toMatchObject({
      provider: "veriff",
      status: "approved",
      pep: false,
      sanctions: false,
      country: "GH",
      identity: { fullName: "Kwame Boateng", birthDate: "1988-02-29", country: "GH" },
    });
    expect(r.reviewedAt).not.toBeNull();
  });

  it.each([
    ["declined", 102, "rejected", ["FORGERY"]],
    ["resubmission_requested", 201, "retry", ["VERIFF_REASON_201"]],
    ["expired", null, "retry", ["EXPIRED"]],
    ["abandoned", null, "retry", ["ABANDONED"]],
    ["review", null, "in_review", []],
  ] as const)("%s (reason %s) → %s", async (status, reasonCode, ours, labels) => {
    const { externalId, sessionId } = await started();
    fake.decide(sessionId, { status, reasonCode });
    expect(await veriff.fetchReview(sessionId, externalId)).toMatchObject({ status: ours, labels });
  });

  it.each([
    ["declined", "102", "rejected", ["FORGERY"]],
    ["declined", "108", "rejected", ["VERIFF_REASON_108"]],
    ["resubmission_requested", "201", "retry", ["VERIFF_REASON_201"]],
  ] as const)("%s with the reason code as a string (%s, as Veriff documents it) → %s", async (status, reasonCode, ours, labels) => {
    const { externalId, sessionId } = await started();
    fake.decide(sessionId, { status, reasonCode });
    expect(await veriff.fetchReview(sessionId, externalId)).toMatchObject({ applicantId: sessionId, externalId, status: ours, labels });
  });

  it("a reason code that is not a number adds no label rather than refusing the decision", async () => {
    const { externalId, sessionId } = await started();
    fake.decide(sessionId, { status: "declined", reasonCode: "suspected fraud; see notes" });
    expect(await veriff.fetchReview(sessionId, externalId)).toMatchObject({ status: "rejected", labels: [] });
  });

  it("PEP and sanctions risk labels set the flags", async () => {
    const { externalId, sessionId } = await started();
    fake.decide(sessionId, {
      status: "approved",
      riskLabels: [
        { label: "person_pep_match", category: "person" },
        { label: "person_sanctions_match", category: "person" },
      ],
    });
    expect(await veriff.fetchReview(sessionId, externalId)).toMatchObject({
      pep: true,
      sanctions: true,
      labels: ["PERSON_PEP_MATCH", "PERSON_SANCTIONS_MATCH"],
    });
  });
});

describe("veriff: webhooks", () => {
  it("a signed decision webhook is a KYC review keyed on the body's SHA-256", async () => {
    const { externalId, sessionId } = await started();
    fake.decide(sessionId, { status: "declined", reasonCode: 103, person: { firstName: "A", lastName: "B" } });
    const cb = fake.decisionWebhook(sessionId);
    const v = veriff.verifyCallback(cb.rawBody, cb.headers);
    expect(v).toMatchObject({
      kind: "kyc_review",
      review: { applicantId: sessionId, externalId, status: "rejected", labels: ["SELFIE_MISMATCH"] },
    });
    expect(v!.eventId).toBe(createHash("sha256").update(cb.rawBody).digest("hex"));
  });

  it("a signed decision webhook whose reasonCode is a string is a review, not an unreadable body", async () => {
    const { externalId, sessionId } = await started();
    fake.decide(sessionId, { status: "declined", reasonCode: "102" });
    const cb = fake.decisionWebhook(sessionId);
    expect(JSON.parse(cb.rawBody.toString()).verification.reasonCode).toBe("102");
    expect(veriff.verifyCallback(cb.rawBody, cb.headers)).toMatchObject({
      kind: "kyc_review",
      review: { applicantId: sessionId, externalId, status: "rejected", labels: ["FORGERY"] },
    });
  });

  it("a forged, tampered or unsigned webhook is null; so is one naming another API key", async () => {
    const { sessionId } = await started();
    fake.decide(sessionId, { status: "approved" });
    const forged = fake.forgedWebhook(sessionId);
    expect(veriff.verifyCallback(forged.rawBody, forged.headers)).toBeNull();
    const good = fake.decisionWebhook(sessionId);
    expect(veriff.verifyCallback(Buffer.from(good.rawBody.toString().replace('"approved"', '"declined"')), good.headers)).toBeNull();
    const unsigned = new Headers(good.headers);
    unsigned.delete("x-hmac-signature");
    expect(veriff.verifyCallback(good.rawBody, unsigned)).toBeNull();
    const otherClient = new Headers(good.headers);
    otherClient.set("x-auth-client", crypto.randomUUID());
    expect(veriff.verifyCallback(good.rawBody, otherClient)).toBeNull();
  });

  it("a signed event webhook (started) is ignored", async () => {
    const { sessionId } = await started();
    const cb = fake.eventWebhook(sessionId, "started");
    expect(veriff.verifyCallback(cb.rawBody, cb.headers)).toMatchObject({ kind: "ignored", type: "started" });
  });
});
