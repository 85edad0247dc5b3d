import net, { type AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../../errors";
import { type FakeSumsub, startFakeSumsub } from "../../testing/fake-sumsub";
import { type FakeVeriff, startFakeVeriff } from "../../testing/fake-veriff";
import { appErrorOf } from "../../testing/rejection";
import { runWithFailover } from "./failover";
import {
  assertKycConfigured,
  isKycProviderConfigured,
  kycProvider,
  kycProviders,
  resetKycConfigCache,
  type StartKybInput,
  withFailover,
  withProvider,
} from "./index";
import { veriffProvider } from "./veriff";

let sumsub: FakeSumsub;
let veriff: FakeVeriff;
const saved = { ...process.env };
const publicUrl = "http://localhost:3000";

function configure(providers: string, extra: Record<string, string> = {}) {
  Object.assign(process.env, {
    KYC_PROVIDERS: providers,
    SUMSUB_APP_TOKEN: sumsub.appToken,
    SUMSUB_SECRET_KEY: sumsub.secretKey,
    SUMSUB_WEBHOOK_SECRET: sumsub.webhookSecret,
    SUMSUB_API_URL: sumsub.url,
    VERIFF_API_KEY: veriff.apiKey,
    VERIFF_SHARED_SECRET: veriff.sharedSecret,
    VERIFF_API_URL: veriff.url,
    KYC_HTTP_TIMEOUT_MS: "1000",
    KYC_RETRY_ATTEMPTS: "2",
    KYC_RETRY_BASE_MS: "5",
    ...extra,
  });
  resetKycConfigCache();
}

const startKyc = (levelName = "basic-kyc") =>
  withFailover("startKyc", (p) => p.startKyc({ externalId: crypto.randomUUID(), levelName, publicUrl }));

const kyb = (): StartKybInput => ({
  externalId: crypto.randomUUID(),
  levelName: "basic-kyb",
  legalName: "Kente Labs Ltd",
  registrationNumber: "CS1234",
  country: "GH",
  address: { line1: "1 Oxford Street", city: "Accra", country: "GH" },
  publicUrl,
});

/** A loopback URL nothing listens on: a connection there is refused before anything is sent. */
async function closedPortUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  [sumsub, veriff] = await Promise.all([startFakeSumsub(), startFakeVeriff()]);
});
afterAll(async () => {
  await Promise.all([sumsub.close(), veriff.close()]);
});
beforeEach(() => {
  sumsub.setMode("ok");
  veriff.setMode("ok");
  sumsub.requests.length = 0;
  veriff.requests.length = 0;
  configure("sumsub,veriff");
});
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetKycConfigCache();
});

describe("withFailover", () => {
  it("uses the first provider when it answers", async () => {
    const r = await startKyc();
    expect(r.provider).toBe("sumsub");
    expect(r.value.provider).toBe("sumsub");
    expect(veriff.requests).toHaveLength(0);
  });

  it("retries a transient failure with backoff and stays on the same provider when it recovers", async () => {
    sumsub.failNext("server_error", 2);
    const r = await startKyc();
    expect(r.provider).toBe("sumsub");
    expect(sumsub.requests.map((x) => x.status)).toEqual([500, 500, 201, 200, 200]);
    expect(veriff.requests).toHaveLength(0);
  });

  it("first provider down → after its retries, the second is used", async () => {
    sumsub.setMode("server_error");
    const r = await startKyc();
    expect(r.provider).toBe("veriff");
    expect(r.value.verificationUrl).toBe(veriff.sessions.get(r.value.applicantId)!.url);
    expect(sumsub.requests.map((x) => x.status)).toEqual([500, 500, 500]);
    expect(veriff.requests.map((x) => x.status)).toEqual([201]);
  });

  it("a provider that names a Retry-After window is not retried inside the request: failover at once", async () => {
    sumsub.setMode("rate_limited");
    expect((await startKyc()).provider).toBe("veriff");
    expect(sumsub.requests).toHaveLength(1);
  });

  it("all down → PROVIDER_UNAVAILABLE with the largest Retry-After (HTTP date or seconds) and the header", async () => {
    sumsub.setMode("unavailable"); // Retry-After: an HTTP date 30 s ahead
    veriff.setMode("rate_limited"); // Retry-After: 7
    const err = await appErrorOf(startKyc());
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.status).toBe(503);
    const sec = err.details?.retryAfterSec as number;
    expect(sec).toBeGreaterThanOrEqual(28);
    expect(sec).toBeLessThanOrEqual(31);
    expect(err.headers).toEqual({ "Retry-After": String(sec) });
    expect(err.details).toMatchObject({ providers: ["sumsub", "veriff"] });
  });

  it("all down without a window → PROVIDER_UNAVAILABLE without retryAfterSec, after every retry that is safe", async () => {
    sumsub.setMode("server_error");
    veriff.setMode("server_error");
    const err = await appErrorOf(startKyc());
    expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    expect(err.details?.retryAfterSec).toBeUndefined();
    expect(err.headers).toBeUndefined();
    // Sumsub's applicant creation is safe to repeat (a second one answers 409); Veriff's session
    // creation that ended in a 5xx may have created a session, so it is not sent again.
    expect([sumsub.requests.length, veriff.requests.length]).toEqual([3, 1]);
  });

  it("timeouts count as unavailable and fail over", async () => {
    // Long enough for the provider that answers to answer on a loaded machine; the hanging one costs it in full.
    configure("sumsub,veriff", { KYC_HTTP_TIMEOUT_MS: "1500", KYC_RETRY_ATTEMPTS: "0" });
    sumsub.setMode("hang");
    expect((await startKyc()).provider).toBe("veriff");
    veriff.setMode("hang");
    expect((await appErrorOf(startKyc())).code).toBe("PROVIDER_UNAVAILABLE");
  });

  it("a bad level name → PROVIDER_FAILURE every time, without retry or failover", async () => {
    for (let i = 0; i < 2; i++) {
      const err = await appErrorOf(startKyc("no-such-level"));
      expect(err.code).toBe("PROVIDER_FAILURE");
      expect(err.status).toBe(502);
      expect(err.details).toEqual({ provider: "sumsub", providerCode: "http_400" });
      expect(err.message).not.toContain("no-such-level");
    }
    expect(sumsub.requests.map((x) => x.status)).toEqual([400, 400]);
    expect(veriff.requests).toHaveLength(0);
  });

  it("refused credentials → PROVIDER_FAILURE, no failover", async () => {
    configure("sumsub,veriff", { SUMSUB_SECRET_KEY: "wrong" });
    expect((await appErrorOf(startKyc())).details).toEqual({ provider: "sumsub", providerCode: "app-token-signature-mismatch" });
    expect(veriff.requests).toHaveLength(0);
  });

  it("KYB skips providers without KYB", async () => {
    configure("veriff,sumsub");
    const r = await withFailover("startKyb", (p) => p.startKyb(kyb()), { kyb: true });
    expect(r.provider).toBe("sumsub");
    expect(veriff.requests).toHaveLength(0);
  });

  it('KYB without the option still moves past Veriff\'s "no KYB here" to the next provider', async () => {
    configure("veriff,sumsub");
    const r = await withFailover("startKyb", (p) => p.startKyb(kyb()));
    expect(r.provider).toBe("sumsub");
    expect(sumsub.applicants.get(r.value.applicantId)).toMatchObject({ type: "company" });
  });

  it("KYB with only Veriff configured is PROVIDER_FAILURE (kyb_not_supported), with or without the option", async () => {
    configure("veriff");
    for (const opts of [{ kyb: true }, {}]) {
      const err = await appErrorOf(withFailover("startKyb", (p) => p.startKyb(kyb()), opts));
      expect(err).toMatchObject({ code: "PROVIDER_FAILURE", details: { reason: "kyb_not_supported" } });
    }
    expect(veriff.requests).toHaveLength(0);
  });

  it("an error that is not a provider's passes through untouched", async () => {
    const boom = new AppError("CONFLICT", "ours");
    expect(await withFailover("x", async () => Promise.reject(boom)).catch((e: unknown) => e)).toBe(boom);
  });
});

describe("no duplicate Veriff session", () => {
  const sessionsOf = (externalId: string) => [...veriff.sessions.values()].filter((s) => s.vendorData === externalId);
  const startFor = (externalId: string) => withFailover("kyc.start", (p) => p.startKyc({ externalId, levelName: "basic-kyc", publicUrl }));

  it("a session created but answered with a 5xx is not created again: Veriff alone → PROVIDER_UNAVAILABLE with one session there", async () => {
    configure("veriff");
    const externalId = crypto.randomUUID();
    veriff.loseAnswerAfterCreating("bad_gateway", 1);
    const err = await appErrorOf(startFor(externalId));
    expect(err).toMatchObject({ code: "PROVIDER_UNAVAILABLE", details: { providers: ["veriff"] } });
    expect(veriff.requests.map((r) => [r.method, r.path, r.status])).toEqual([["POST", "/v1/sessions", 502]]);
    expect(sessionsOf(externalId)).toHaveLength(1);
  });

  it("a lost answer (timeout after sending) moves on to the next provider without a second Veriff session", async () => {
    // Only Veriff's wait is cut short, so Sumsub's answers are not raced against it.
    const impatientVeriff = veriffProvider({
      apiKey: veriff.apiKey,
      sharedSecret: veriff.sharedSecret,
      apiUrl: veriff.url,
      timeoutMs: 150,
    });
    const providers = [impatientVeriff, kycProviders().find((p) => p.name === "sumsub")!];
    const externalId = crypto.randomUUID();
    veriff.loseAnswerAfterCreating("hang", 1);
    const r = await runWithFailover(providers, { retryAttempts: 2, retryBaseMs: 1 }, "kyc.start", (p) =>
      p.startKyc({ externalId, levelName: "basic-kyc", publicUrl }),
    );
    expect(r.provider).toBe("sumsub");
    expect(sumsub.applicants.get(r.value.applicantId)).toMatchObject({ externalUserId: externalId });
    expect(veriff.requests).toHaveLength(1);
    expect(sessionsOf(externalId)).toHaveLength(1);
  });

  it("a connection refused before anything was sent is retried as usual", async () => {
    // The transport counts what was attempted: a refused connection leaves no trace at a server.
    const attempted: string[] = [];
    const apiUrl = await closedPortUrl();
    const p = veriffProvider({
      apiKey: veriff.apiKey,
      sharedSecret: veriff.sharedSecret,
      apiUrl,
      timeoutMs: 1000,
      fetchFn: (url, init) => {
        attempted.push(`${init?.method} ${String(url)}`);
        return fetch(url, init);
      },
    });
    const err = await appErrorOf(
      runWithFailover([p], { retryAttempts: 2, retryBaseMs: 1 }, "kyc.start", (x) =>
        x.startKyc({ externalId: crypto.randomUUID(), levelName: "basic-kyc", publicUrl }),
      ),
    );
    expect(err).toMatchObject({ code: "PROVIDER_UNAVAILABLE", details: { providers: ["veriff"] } });
    expect(attempted).toEqual(Array.from({ length: 3 }, () => `POST ${apiUrl}/v1/sessions`));
  });
});

describe("withProvider (refresh of a session started with one provider)", () => {
  it("retries that provider, never another, and maps its failures the same way", async () => {
    const started = await startKyc();
    sumsub.requests.length = 0;
    sumsub.failNext("server_error", 1);
    const r = await withProvider("sumsub", "kyc.refresh", (p) => p.fetchReview(started.value.applicantId, "x"));
    expect(r).toMatchObject({ provider: "sumsub", value: { status: "pending" } });
    expect(sumsub.requests.map((x) => x.status)).toEqual([500, 200]);

    sumsub.setMode("rate_limited");
    const err = await appErrorOf(withProvider("sumsub", "kyc.refresh", (p) => p.fetchReview(started.value.applicantId, "x")));
    expect(err).toMatchObject({ code: "PROVIDER_UNAVAILABLE", details: { retryAfterSec: 7, providers: ["sumsub"] } });
    expect(veriff.requests).toHaveLength(0);
  });
});

describe("configured providers", () => {
  it("lists them in order and finds one by name; an unconfigured one is refused", async () => {
    configure("veriff,sumsub");
    expect(kycProviders().map((p) => p.name)).toEqual(["veriff", "sumsub"]);
    expect(kycProvider("sumsub").name).toBe("sumsub");
    expect([isKycProviderConfigured("sumsub"), isKycProviderConfigured("sandbox")]).toEqual([true, false]);
    expect(() => kycProvider("sandbox")).toThrow(AppError);
  });

  it("assertKycConfigured throws on a bad environment until it is fixed", () => {
    configure("sumsub", { SUMSUB_SECRET_KEY: "" });
    expect(() => assertKycConfigured()).toThrow(/SUMSUB_SECRET_KEY/);
    configure("sumsub");
    expect(() => assertKycConfigured()).not.toThrow();
  });
});
