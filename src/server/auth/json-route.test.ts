import { describe, expect, it } from "vitest";
import { z } from "zod";
import { rateLimited } from "../errors";
import { jsonRoute } from "./json-route";

const post = (body: string, contentType = "application/json") =>
  new Request("http://localhost/api/auth/x", { method: "POST", headers: { "content-type": contentType }, body });

describe("console auth steps beside next-auth (jsonRoute)", () => {
  const route = jsonRoute(z.object({ email: z.string().min(1) }), async (input) => {
    if (input.email === "limited") throw rateLimited(42, "Too many failed sign-ins; wait a few minutes and try again.");
    return { ok: true };
  });

  it("answers a 429 in the envelope with the Retry-After the service built", async () => {
    const res = await route(post(JSON.stringify({ email: "limited" })));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("42");
    const body = await res.json();
    expect(body.error).toMatchObject({ code: "RATE_LIMITED", details: { retryAfterSec: 42 } });
    expect(body.error.correlationId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("refuses what is not JSON (415) and empty or malformed fields (400), in the envelope", async () => {
    const form = await route(post("email=x", "application/x-www-form-urlencoded"));
    expect(form.status).toBe(415);
    expect((await form.json()).error.code).toBe("VALIDATION_ERROR");
    for (const bad of ["{", JSON.stringify({ email: "" }), JSON.stringify({})]) {
      const res = await route(post(bad));
      expect(res.status, bad).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: "VALIDATION_ERROR", message: "Fill in every field." });
    }
    expect(await (await route(post(JSON.stringify({ email: "a@b.test" })))).json()).toEqual({ ok: true });
  });
});
