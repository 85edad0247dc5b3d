import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./http";

describe("Retry-After", () => {
  const now = Date.parse("2026-11-23T07:00:00Z");
  it("reads delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter("7", now)).toBe(7);
    expect(parseRetryAfter("Mon, 23 Nov 2026 07:00:30 GMT", now)).toBe(30);
  });
  it("ignores absent, past, zero, absurd and garbled values", () => {
    for (const v of [null, undefined, "", "0", "-5", "1.5", "999999", "soon", "Mon, 23 Nov 2026 06:59:00 GMT"])
      expect(parseRetryAfter(v, now)).toBeUndefined();
  });
});
