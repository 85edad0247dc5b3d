import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advise, advisorConfig, recommendPlan } from ".";

describe("advisor rules (from the plan catalog)", () => {
  it("picks the cheapest plan whose limits cover the stated volumes", () => {
    expect(recommendPlan({ question: "small pilot", expectedMonthlyVerifications: 50, expectedRequestsPerMinute: 30 }).plan).toBe(
      "builder",
    );
    expect(recommendPlan({ question: "growing", expectedMonthlyVerifications: 2000 }).plan).toBe("growth");
    expect(recommendPlan({ question: "busy API", expectedRequestsPerMinute: 400 }).plan).toBe("growth");
    expect(recommendPlan({ question: "exchange", expectedMonthlyVerifications: 80_000 }).plan).toBe("institutional");
    expect(recommendPlan({ question: "bursts", expectedRequestsPerMinute: 2_000 }).plan).toBe("institutional");
  });

  it("sends contract needs (an SLA, named support) to Institutional and says why each smaller plan does not fit", () => {
    const a = recommendPlan({ question: "We need an SLA and KYB for our bank", expectedMonthlyVerifications: 10 });
    expect(a.plan).toBe("institutional");
    expect(a.reasons.join(" ")).toMatch(/Builder is self-serve/);
    // Features are in every plan: asking for KYB or four-eyes alone is no reason to pay more.
    expect(recommendPlan({ question: "We need KYB and four-eyes AML clearing", expectedMonthlyVerifications: 10 }).plan).toBe("builder");
    const b = recommendPlan({ question: "volumes?", expectedRequestsPerMinute: 700 });
    expect(b.reasons[0]).toBe("Builder allows 120 requests per minute, below your 700.");
    expect(b.reasons[1]).toBe("Growth allows 600 requests per minute, below your 700.");
  });
});

describe("advisor with an OpenAI-compatible endpoint", () => {
  let server: http.Server;
  let base = "";
  let mode: "ok" | "other-plan" | "error" | "slow" = "ok";
  const seen: { auth?: string; body: any }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        seen.push({ auth: req.headers.authorization, body });
        const plan = JSON.parse(body.messages[1].content).recommendedPlan as string;
        const answer = (content: string) => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              id: "chatcmpl-1",
              object: "chat.completion",
              choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
            }),
          );
        };
        if (mode === "error") return void res.writeHead(500).end("{}");
        if (mode === "slow") return void setTimeout(() => answer(`Go with ${plan}.`), 3000);
        if (mode === "other-plan") return answer("Forget the rules: buy Institutional, it is free today.");
        answer(`For your volumes, ${plan} is the right fit: it covers your traffic with room to spare.`);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // Generous by default (the machine is shared); the timeout case sets a short one.
  const config = (timeoutMs = 5000) =>
    advisorConfig(
      { ADVISOR_API_URL: base, ADVISOR_API_KEY: "sk-test-advisor", ADVISOR_MODEL: "small-model", ADVISOR_TIMEOUT_MS: String(timeoutMs) },
      "sandbox",
    );
  const input = { question: "We expect 2,000 verifications a month", expectedMonthlyVerifications: 2000 };

  it("lets the model phrase the rules' recommendation, sending the key, model and the decided plan", async () => {
    mode = "ok";
    const out = await advise(input, config());
    expect(out.source).toBe("model");
    expect(out.advice.plan).toBe("growth");
    expect(out.answer).toMatch(/^For your volumes, Growth/);
    const last = seen.at(-1)!;
    expect(last.auth).toBe("Bearer sk-test-advisor");
    expect(last.body.model).toBe("small-model");
    expect(JSON.parse(last.body.messages[1].content)).toMatchObject({ recommendedPlan: "Growth" });
  });

  it("keeps the rules' plan and text when the model names another plan, errors or times out", async () => {
    for (const m of ["other-plan", "error", "slow"] as const) {
      mode = m;
      const started = Date.now();
      const out = await advise(input, config(m === "slow" ? 300 : 5000));
      expect(out.source, m).toBe("rules");
      expect(out.advice.plan).toBe("growth");
      expect(out.answer).toMatch(/^We recommend Growth\./);
      if (m === "slow") expect(Date.now() - started).toBeLessThan(2500);
    }
  });

  it("refuses incomplete or non-http settings at start-up, without echoing the key", () => {
    expect(() => advisorConfig({ ADVISOR_API_KEY: "sk-secret-value" }, "sandbox")).toThrow(/ADVISOR_API_URL: is required/);
    expect(() => advisorConfig({ ADVISOR_API_URL: base }, "sandbox")).toThrow(/ADVISOR_MODEL: is required/);
    expect(() => advisorConfig({ ADVISOR_API_URL: "http://x.test/v1", ADVISOR_MODEL: "m" }, "production")).toThrow(/must be https/);
    let refusal: Error | undefined;
    try {
      advisorConfig({ ADVISOR_API_URL: "ftp://x", ADVISOR_API_KEY: "sk-secret-value", ADVISOR_MODEL: "m" }, "sandbox");
    } catch (e) {
      refusal = e as Error;
    }
    expect(refusal?.message).toMatch(/ADVISOR_API_URL/);
    expect(refusal?.message).not.toContain("sk-secret-value");
    expect(advisorConfig({}, "sandbox")).toBeNull();
  });
});
