import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError, billingCall, errorText, statusOf } from "@/components/billing/checkout-api";
import { randomIp, trustLoopbackProxy, workAddress } from "@/server/testing/billing";
import { testServer } from "@/server/testing/harness";

// The browser's billing client against the real /v1 pipeline. Pages call relative paths; here a
// thin transport resolves them against the test server and sends each scenario from its own
// client address (through the trusted loopback proxy), so the per-IP budgets of other files stay apart.
trustLoopbackProxy();

const realFetch = globalThis.fetch;
let base = "";
let ip = randomIp();

beforeAll(async () => {
  base = (await testServer()).url;
  vi.stubGlobal("fetch", (input: string, init: RequestInit = {}) =>
    realFetch(new URL(input, base), { ...init, headers: { ...(init.headers as Record<string, string>), "x-forwarded-for": ip } }),
  );
});
afterAll(() => vi.unstubAllGlobals());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("the call succeeded");
    },
    (e: unknown) => e as ApiError,
  );

type Started = { challengeId: string; devCode?: string };

describe("billingCall and errorText", () => {
  it("turns an error answer into an ApiError in the envelope's words", async () => {
    ip = randomIp();
    const missing = await failure(statusOf(randomUUID()));
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, code: "NOT_FOUND", retryAfterSec: null });
    expect(errorText(missing)).toBe(missing.message);

    const consumer = await failure(billingCall("/v1/billing/email/otp/start", { email: "someone@gmail.com" }));
    expect(consumer).toMatchObject({ status: 400, code: "VALIDATION_ERROR", details: { reason: "work_email_required" } });
    expect(errorText(consumer)).toBe("Use a work email address: disposable and consumer mailboxes are not accepted for signup.");
  });

  it("says how many attempts a wrong code leaves", async () => {
    ip = randomIp();
    const started = await billingCall<Started>("/v1/billing/email/otp/start", { email: workAddress("api") });
    const wrong = started.devCode === "000000" ? "111111" : "000000";
    const refused = await failure(billingCall("/v1/billing/email/otp/confirm", { challengeId: started.challengeId, code: wrong }));
    expect(refused).toMatchObject({ status: 400, code: "INVALID_CODE", details: { attemptsRemaining: 4 } });
    expect(errorText(refused)).toBe("The code is incorrect or has expired. 4 attempts left.");
  });

  it("reads Retry-After from a 429 and says when to try again", async () => {
    ip = randomIp();
    // A checkout with a proof nobody issued is counted, then refused (403); the 11th call in one
    // minute window is 429. 21 calls put 11 in one window even when a minute boundary falls between them.
    let limited: ApiError | undefined;
    for (let i = 0; i < 21 && !limited; i++) {
      const e = await failure(
        billingCall("/v1/billing/checkout", { emailProofToken: "ept_unknown", plan: "builder", organizationName: "Burst Ltd" }),
      );
      if (e.status !== 403) limited = e;
    }
    expect(limited).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    const sec = limited!.retryAfterSec!;
    expect(sec >= 1 && sec <= 60).toBe(true);
    expect(errorText(limited)).toBe(`${limited!.message} You can try again in ${sec} second${sec === 1 ? "" : "s"}.`);
  });

  it("sends the Idempotency-Key, so a resent checkout replays the first answer", async () => {
    ip = randomIp();
    const started = await billingCall<Started>("/v1/billing/email/otp/start", { email: workAddress("replay") });
    const { emailProofToken } = await billingCall<{ emailProofToken: string }>("/v1/billing/email/otp/confirm", {
      challengeId: started.challengeId,
      code: started.devCode,
    });
    const body = { emailProofToken, plan: "builder", organizationName: "Replay Ltd" };
    const key = randomUUID();
    const first = await billingCall<{ organizationId: string; apiKey: string }>("/v1/billing/checkout", body, { idempotencyKey: key });
    const again = await billingCall<{ organizationId: string; apiKey: string }>("/v1/billing/checkout", body, { idempotencyKey: key });
    expect(again).toEqual(first);
    // Without the key the spent proof is refused, in words.
    const fresh = await failure(billingCall("/v1/billing/checkout", body, { idempotencyKey: randomUUID() }));
    expect(fresh).toMatchObject({ status: 403 });
    expect(errorText(fresh)).toContain("invalid, expired or already used");
  });

  it("says the service could not be reached when the network fails", async () => {
    const closed = await failure(billingCall("http://127.0.0.1:9/v1/billing/plans"));
    expect(closed).toMatchObject({ status: 0 });
    expect(errorText(closed)).toBe("The service could not be reached. Check your connection and try again.");
  });
});
