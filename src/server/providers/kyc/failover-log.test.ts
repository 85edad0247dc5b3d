import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../log";
import { type FakeSumsub, startFakeSumsub } from "../../testing/fake-sumsub";
import { runWithFailover } from "./failover";
import { sumsubProvider } from "./sumsub";

let fake: FakeSumsub;
const lines: string[] = [];
const g = globalThis as unknown as { __biLog?: unknown };
let previous: unknown;

beforeAll(async () => {
  fake = await startFakeSumsub();
  previous = g.__biLog;
  g.__biLog = createLogger(
    "warn",
    new Writable({
      write: (chunk, _enc, done) => {
        lines.push(String(chunk));
        done();
      },
    }),
  );
});
afterAll(async () => {
  g.__biLog = previous;
  await fake.close();
});

describe("failover logging", () => {
  it("logs each failure at warn with the provider and its code, never the person or the provider's text", async () => {
    const p = sumsubProvider({
      appToken: fake.appToken,
      secretKey: fake.secretKey,
      webhookSecret: fake.webhookSecret,
      apiUrl: fake.url,
      timeoutMs: 2000,
    });
    const externalId = crypto.randomUUID();
    fake.failNext("server_error", 1);
    await runWithFailover([p], { retryAttempts: 2, retryBaseMs: 1 }, "kyc.start", (x) =>
      x.startKyc({ externalId, levelName: "secret-level-xyz", publicUrl: "http://x" }),
    ).catch(() => null);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.map((l) => [l.level, l.provider, l.op, l.kind, l.providerCode])).toEqual([
      [40, "sumsub", "kyc.start", "transient", "http_500"],
      [40, "sumsub", "kyc.start", "permanent", "http_400"],
    ]);
    const all = lines.join("\n");
    expect(all).not.toContain(externalId);
    expect(all).not.toContain("secret-level-xyz");
    expect(all).not.toContain("Existing level");
  });
});
